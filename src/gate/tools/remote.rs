//! Copies to and commands on other machines: `scp`/`rsync` whose destination is a `host:path`
//! (or an `rsync://`/`scp://` address) put files on a server, and `ssh HOST COMMAND` runs a
//! command there (`git pull && systemctl restart app` is a deploy the gate cannot see into).
//! They are read by the shape of their operands, not by a verb, so they sit beside the table.
//! `ssh HOST` with no command opens a session and stays silent.

use crate::gate::classify::Class;

/// A command that acts on another machine, and what it does.
pub struct RemoteAct {
    pub class: Class,
    pub what: &'static str,
}

/// `scp` options that take the next word as their value.
const SCP_VALUE_OPTIONS: [&str; 10] = ["-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X"];

/// `rsync` options that take the next word as their value (most are written `--opt=value`).
const RSYNC_VALUE_OPTIONS: [&str; 18] = [
    "-e",
    "--rsh",
    "-f",
    "--filter",
    "--exclude",
    "--include",
    "--exclude-from",
    "--include-from",
    "--files-from",
    "-T",
    "--temp-dir",
    "--rsync-path",
    "--port",
    "--password-file",
    "--chmod",
    "--log-file",
    "-B",
    "--block-size",
];

/// `ssh` options that take the next word as their value.
const SSH_VALUE_OPTIONS: [&str; 21] = [
    "-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p",
    "-Q", "-R", "-S", "-W", "-w",
];

/// What `program` with `args` does on another machine, if anything.
pub fn act(program: &str, args: &[Option<&str>]) -> Option<RemoteAct> {
    match program {
        "scp" | "rsync" => {
            let value_options: &[&str] = if program == "scp" {
                &SCP_VALUE_OPTIONS
            } else {
                &RSYNC_VALUE_OPTIONS
            };
            let operands = operands(args, value_options);
            let (destination, sources) = operands.split_last()?;
            // The destination is remote, or computed at run time (it may well be).
            let remote = match destination {
                Some(d) => is_remote(d),
                None => true,
            };
            (remote && !sources.is_empty()).then_some(RemoteAct {
                class: Class::Deploy,
                what: "copies files to another machine",
            })
        }
        "ssh" => (operands(args, &SSH_VALUE_OPTIONS).len() > 1).then_some(RemoteAct {
            class: Class::Deploy,
            what: "runs a command on another machine",
        }),
        _ => None,
    }
}

/// The operands of `args`: words that are no options nor an option's value. Options end at
/// `--`; a computed word (`None`) is an operand.
fn operands<'a>(args: &[Option<&'a str>], value_options: &[&str]) -> Vec<Option<&'a str>> {
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word {
            Some("--") => {
                out.extend(words.copied());
                break;
            }
            Some(w) if value_options.contains(w) => {
                words.next();
            }
            Some(w) if w.starts_with('-') && w.len() > 1 => {}
            other => out.push(*other),
        }
    }
    out
}

/// `[user@]host:path`, `host::module` or a remote URL; not a local path (`./a:b`, `/x:y`) nor a
/// drive letter (`C:\dir`).
fn is_remote(word: &str) -> bool {
    if ["rsync://", "scp://", "sftp://", "ssh://"]
        .iter()
        .any(|scheme| word.starts_with(scheme))
    {
        return true;
    }
    let Some((host, _)) = word.split_once(':') else {
        return false;
    };
    host.len() > 1 && !host.contains('/') && !host.starts_with('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acts(line: &str) -> bool {
        let mut words = line.split(' ');
        let program = words.next().unwrap();
        let args: Vec<Option<&str>> = words.map(|w| (w != "$X").then_some(w)).collect();
        act(program, &args).is_some()
    }

    #[test]
    fn copies_to_a_host_and_remote_commands_are_deploys() {
        for line in [
            "scp -r mypkg deploy@prod.example.com:/srv/app/",
            "scp -P 2222 -i key dist/app.tar.gz prod:",
            "rsync -avz --delete build/ deploy@prod:/var/www/",
            "rsync -a -e ssh dist/ host::module",
            "rsync -a dist/ rsync://mirror.example.com/pkg/",
            "rsync -a dist/ $X",
            "ssh deploy@prod.example.com cd /srv/app && git pull",
            "ssh -p 2222 -i key prod systemctl restart app",
            "ssh prod -- uptime",
        ] {
            assert!(acts(line), "{line}");
        }
    }

    #[test]
    fn local_copies_downloads_and_sessions_are_not() {
        for line in [
            "scp prod:/var/log/app.log ./logs/",
            "rsync -a src/ backup/",
            "rsync -av prod:/srv/data/ ./data/",
            "rsync -a ./a:b dest/",
            "ssh prod",
            "ssh -T git@github.com",
            "ssh -o StrictHostKeyChecking=no -p 22 prod",
            "scp --help",
        ] {
            assert!(!acts(line), "{line}");
        }
    }
}
