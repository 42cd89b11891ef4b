//! Entering the boundary (Linux): a user and mount namespace with the anchors bound
//! read-only, then Landlock to keep the mounts as they are. Called once, in a single-threaded
//! process, before the command is started; what it sets up is inherited by every process the
//! command starts, whatever it does (`setsid`, a double fork, another shell), and cannot be
//! undone from inside.

use std::ffi::CString;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus,
};

use super::Plan;

/// Why the boundary could not be set up. The command is then not run (fail closed).
#[derive(Debug)]
pub enum Error {
    /// No new user and mount namespace (unprivileged user namespaces are switched off).
    Namespace(std::io::Error),
    /// A bind mount failed.
    Mount(PathBuf, std::io::Error),
    /// Landlock is not available, so the mounts could be undone from inside.
    Landlock(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Namespace(e) => write!(
                f,
                "cannot make a user and mount namespace ({e}); the kernel or a security module forbids unprivileged user namespaces"
            ),
            Error::Mount(path, e) => {
                write!(f, "cannot make `{}` read-only: {e}", path.display())
            }
            Error::Landlock(why) => write!(f, "Landlock is not available: {why}"),
        }
    }
}

impl std::error::Error for Error {}

/// The Landlock ABI the running kernel reports (0 when it has none).
pub fn landlock_abi() -> i64 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: the documented version query: no ruleset attribute, size 0, the version flag.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    version.max(0)
}

/// Puts this process inside the boundary described by `plan`.
pub fn confine(plan: &Plan) -> Result<(), Error> {
    if landlock_abi() < 1 {
        return Err(Error::Landlock(
            "the kernel reports no Landlock ABI (Linux 5.13 or later, with `landlock` in the `lsm=` list)".into(),
        ));
    }
    enter_namespaces()?;
    for dir in &plan.pinned {
        bind(dir, dir, libc::MS_BIND | libc::MS_REC)?;
    }
    for anchor in &plan.read_only {
        bind(&anchor.path, &anchor.path, libc::MS_BIND | libc::MS_REC)?;
        bind(
            Path::new(""),
            &anchor.path,
            libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY,
        )?;
    }
    for path in &plan.hidden {
        if path.is_dir() {
            mount_empty(path)?;
        } else {
            bind(Path::new("/dev/null"), path, libc::MS_BIND)?;
            bind(
                Path::new(""),
                path,
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY,
            )?;
        }
    }
    for cleaned in &plan.cleaned {
        bind(&cleaned.copy(), &cleaned.path, libc::MS_BIND)?;
        bind(
            Path::new(""),
            &cleaned.path,
            libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY,
        )?;
    }
    // The working directory still points into the mounts as they were: relative paths would
    // pass under the new binds. Entering it again resolves it through them.
    if let Ok(cwd) = std::env::current_dir() {
        std::env::set_current_dir(&cwd).map_err(|e| Error::Mount(cwd, e))?;
    }
    lock_mounts()
}

/// A new user namespace (this user mapped to itself) and mount namespace whose mounts do not
/// propagate back.
fn enter_namespaces() -> Result<(), Error> {
    // SAFETY: plain system calls on this process; it is single-threaded here.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } != 0 {
        return Err(Error::Namespace(std::io::Error::last_os_error()));
    }
    let write = |file: &str, text: String| std::fs::write(file, text).map_err(Error::Namespace);
    write("/proc/self/setgroups", "deny".into())?;
    write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    bind(
        Path::new(""),
        Path::new("/"),
        libc::MS_REC | libc::MS_PRIVATE,
    )
}

fn bind(source: &Path, target: &Path, flags: libc::c_ulong) -> Result<(), Error> {
    let c = |p: &Path| CString::new(p.as_os_str().as_encoded_bytes()).ok();
    let (Some(src), Some(dst)) = (c(source), c(target)) else {
        return Err(Error::Mount(
            target.to_path_buf(),
            std::io::Error::other("the path holds a NUL byte"),
        ));
    };
    let src_ptr = if source.as_os_str().is_empty() {
        std::ptr::null()
    } else {
        src.as_ptr()
    };
    // SAFETY: NUL-terminated paths that outlive the call; no file system type or data.
    let done = unsafe {
        libc::mount(
            src_ptr,
            dst.as_ptr(),
            std::ptr::null(),
            flags,
            std::ptr::null(),
        )
    };
    if done != 0 {
        return Err(Error::Mount(
            target.to_path_buf(),
            std::io::Error::last_os_error(),
        ));
    }
    Ok(())
}

/// Covers `dir` with an empty, read-only, inaccessible file system.
fn mount_empty(dir: &Path) -> Result<(), Error> {
    let Ok(dst) = CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return Err(Error::Mount(
            dir.to_path_buf(),
            std::io::Error::other("the path holds a NUL byte"),
        ));
    };
    // SAFETY: NUL-terminated strings that outlive the call.
    let done = unsafe {
        libc::mount(
            c"tmpfs".as_ptr(),
            dst.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            c"size=4k,mode=000".as_ptr().cast(),
        )
    };
    if done != 0 {
        return Err(Error::Mount(
            dir.to_path_buf(),
            std::io::Error::last_os_error(),
        ));
    }
    Ok(())
}

/// Landlock with every file access allowed under `/`: a process in a Landlock domain cannot
/// mount, unmount or pivot its root, so the read-only binds stay; `no_new_privs` is set.
fn lock_mounts() -> Result<(), Error> {
    let abi = ABI::V5;
    let root = PathFd::new("/").map_err(|e| Error::Landlock(e.to_string()))?;
    let status = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rule(PathBeneath::new(root, AccessFs::from_all(abi))))
        .and_then(|r| r.restrict_self())
        .map_err(|e| Error::Landlock(e.to_string()))?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(Error::Landlock("the ruleset was not enforced".into()));
    }
    Ok(())
}
