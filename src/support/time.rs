//! UTC timestamps for the decision log, the `--since` times of `log`, `stats` and `replay`, and
//! the local times people read.
//!
//! The log itself needs RFC 3339 timestamps and day-named files (UTC), nothing more, so writing
//! it is a few lines of calendar arithmetic. Reading it in local time needs the system's time
//! zone rules (`TZ`, `/etc/localtime`), which come from `jiff` (already linked through `gix`) and
//! are only consulted by the commands that show times to a person.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A UTC instant with millisecond precision, formatted like `2026-11-30T18:05:04.123Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp {
    /// Milliseconds since the Unix epoch.
    pub millis: i64,
}

impl Timestamp {
    pub fn now() -> Timestamp {
        Timestamp::from_system(SystemTime::now())
    }

    pub fn from_system(t: SystemTime) -> Timestamp {
        let millis = match t.duration_since(UNIX_EPOCH) {
            Ok(d) => d.as_millis() as i64,
            Err(e) => -(e.duration().as_millis() as i64),
        };
        Timestamp { millis }
    }

    /// The civil UTC date `(year, month, day)`.
    pub fn date(self) -> (i64, u32, u32) {
        civil_from_days(self.millis.div_euclid(86_400_000))
    }

    /// `YYYY-MM-DD`, the name of the day's log file.
    pub fn day(self) -> String {
        let (y, m, d) = self.date();
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// RFC 3339 with milliseconds, in UTC.
    pub fn rfc3339(self) -> String {
        let ms_of_day = self.millis.rem_euclid(86_400_000);
        let (h, rest) = (ms_of_day / 3_600_000, ms_of_day % 3_600_000);
        let (min, rest) = (rest / 60_000, rest % 60_000);
        format!(
            "{}T{h:02}:{min:02}:{:02}.{:03}Z",
            self.day(),
            rest / 1000,
            rest % 1000
        )
    }

    /// Parses what [`Timestamp::rfc3339`] writes (and `YYYY-MM-DD` alone, as midnight UTC).
    pub fn parse(text: &str) -> Option<Timestamp> {
        let b = text.as_bytes();
        let num = |r: std::ops::Range<usize>| -> Option<i64> { text.get(r)?.parse().ok() };
        if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
            return None;
        }
        let mut millis = days_from_civil(y, mo as u32, d as u32) * 86_400_000;
        if b.len() > 10 {
            if b.len() < 19 || !matches!(b[10], b'T' | b' ') {
                return None;
            }
            millis += num(11..13)? * 3_600_000 + num(14..16)? * 60_000 + num(17..19)? * 1000;
            if b.get(19) == Some(&b'.') {
                let frac: String = text[20..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .take(3)
                    .collect();
                if !frac.is_empty() {
                    millis += frac.parse::<i64>().ok()? * 10_i64.pow(3 - frac.len() as u32);
                }
            }
        }
        Some(Timestamp { millis })
    }
}

/// The clock times are shown in, and dates without a zone are read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    /// The system's time zone (`TZ`, else `/etc/localtime`), the default.
    Local,
    /// UTC, as the log records times (`--utc`).
    Utc,
}

impl Zone {
    /// `--utc` picks UTC; otherwise local time.
    pub fn from_utc_flag(utc: bool) -> Zone {
        if utc { Zone::Utc } else { Zone::Local }
    }

    fn tz(self) -> jiff::tz::TimeZone {
        match self {
            Zone::Utc => jiff::tz::TimeZone::UTC,
            // An unreadable or unknown `TZ` falls back to UTC (jiff never fails here).
            Zone::Local => jiff::tz::TimeZone::system(),
        }
    }

    /// A short label for table headers: `UTC`, or the zone's abbreviation now (`CET`, `EST`).
    pub fn label(self) -> String {
        match self {
            Zone::Utc => "UTC".into(),
            Zone::Local => {
                let tz = self.tz();
                let now = jiff::Timestamp::now();
                let abbreviation = tz.to_offset_info(now).abbreviation().to_string();
                if abbreviation.is_empty() {
                    tz.to_offset(now).to_string()
                } else {
                    abbreviation
                }
            }
        }
    }
}

impl Timestamp {
    fn to_jiff(self) -> Option<jiff::Timestamp> {
        jiff::Timestamp::from_millisecond(self.millis).ok()
    }

    /// `YYYY-MM-DD HH:MM` in `zone`: what tables show.
    pub fn minute_in(self, zone: Zone) -> String {
        self.format_in(zone, "%Y-%m-%d %H:%M")
    }

    /// `YYYY-MM-DD` in `zone`: the day a person would say this happened on.
    pub fn day_in(self, zone: Zone) -> String {
        self.format_in(zone, "%Y-%m-%d")
    }

    fn format_in(self, zone: Zone, format: &str) -> String {
        match self.to_jiff() {
            Some(ts) => ts.to_zoned(zone.tz()).strftime(format).to_string(),
            None => self.rfc3339(),
        }
    }

    /// Midnight at the start of `day` (`YYYY-MM-DD`) in `zone`.
    pub fn start_of_day(day: &str, zone: Zone) -> Option<Timestamp> {
        let date: jiff::civil::Date = day.parse().ok()?;
        let zoned = date.to_zoned(zone.tz()).ok()?;
        Some(Timestamp {
            millis: zoned.timestamp().as_millisecond(),
        })
    }

    /// The calendar day after `day` (`YYYY-MM-DD`).
    pub fn next_day(day: &str) -> Option<String> {
        let date: jiff::civil::Date = day.parse().ok()?;
        Some(date.tomorrow().ok()?.to_string())
    }
}

/// A `--since` value that is neither a duration nor a date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSince {
    pub text: String,
}

impl BadSince {
    /// What to write instead.
    pub fn hint(&self) -> &'static str {
        "use a duration such as `30m`, `2h`, `7d`, or a date such as `2026-11-30`"
    }
}

impl std::fmt::Display for BadSince {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` is neither a duration nor a date", self.text)
    }
}

impl std::error::Error for BadSince {}

/// Parses `--since`: a duration back from `now` (`30m`, `2h`, `7d`, `1w`), or a date or date
/// and time. A date alone means midnight in `zone`; a time without `Z` is read in `zone`.
pub fn parse_since(text: &str, now: Timestamp, zone: Zone) -> Result<Timestamp, BadSince> {
    let text = text.trim();
    if let Some(ts) = parse_in(text, zone) {
        return Ok(ts);
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (n, unit) = text.split_at(split);
    let seconds = match unit {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => 0,
    };
    match n.parse::<i64>() {
        Ok(n) if seconds > 0 => Ok(Timestamp {
            millis: now.millis - n * seconds * 1000,
        }),
        _ => Err(BadSince {
            text: text.to_owned(),
        }),
    }
}

/// A date (`2026-12-01`) or date and time (`2026-12-01 09:30`, `2026-12-01T09:30:00`) in
/// `zone`; an explicit `Z` or offset wins over `zone`.
fn parse_in(text: &str, zone: Zone) -> Option<Timestamp> {
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Some(Timestamp {
            millis: ts.as_millisecond(),
        });
    }
    if text.len() == 10 {
        return Timestamp::start_of_day(text, zone);
    }
    let civil: jiff::civil::DateTime = text.parse().ok()?;
    let zoned = civil.to_zoned(zone.tz()).ok()?;
    Some(Timestamp {
        millis: zoned.timestamp().as_millisecond(),
    })
}

/// Microseconds in a duration, saturating, for timings in the log.
pub fn micros(d: Duration) -> u64 {
    d.as_micros().min(u64::MAX as u128) as u64
}

// Howard Hinnant's algorithms: days since 1970-01-01 <-> proleptic Gregorian date.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_round_trip() {
        let ts = Timestamp {
            millis: 1_796_061_904_123,
        };
        assert_eq!(ts.rfc3339(), "2026-11-30T18:05:04.123Z");
        assert_eq!(Timestamp::parse(&ts.rfc3339()), Some(ts));
        assert_eq!(
            Timestamp::parse("1970-01-01"),
            Some(Timestamp { millis: 0 })
        );
        assert_eq!(
            Timestamp { millis: -1 }.rfc3339(),
            "1969-12-31T23:59:59.999Z"
        );
        assert_eq!(
            Timestamp::parse("2024-02-29T00:00:00Z").unwrap().day(),
            "2024-02-29"
        );
        assert_eq!(Timestamp::parse("not a date"), None);
    }

    #[test]
    fn since_accepts_durations_and_dates() {
        let now = Timestamp {
            millis: 10 * 86_400_000,
        };
        let since = |text: &str| parse_since(text, now, Zone::Utc);
        assert_eq!(since("2h").unwrap().millis, now.millis - 7_200_000);
        assert_eq!(since("7d").unwrap().millis, 3 * 86_400_000);
        assert_eq!(since("1970-01-02").unwrap().millis, 86_400_000);
        assert_eq!(since("1970-01-02 01:00").unwrap().millis, 90_000_000);
        assert_eq!(
            since("1970-01-02T01:00:00+01:00").unwrap().millis,
            86_400_000
        );
        let err = since("yesterday").unwrap_err();
        assert_eq!(
            err.to_string(),
            "`yesterday` is neither a duration nor a date"
        );
        assert!(err.hint().contains("`2h`"));
        assert!(since("5y").is_err());
    }

    #[test]
    fn utc_formatting_and_days() {
        let ts = Timestamp::parse("2026-11-30T23:59:30Z").unwrap();
        assert_eq!(ts.minute_in(Zone::Utc), "2026-11-30 23:59");
        assert_eq!(ts.day_in(Zone::Utc), "2026-11-30");
        assert_eq!(
            Timestamp::start_of_day("2026-12-01", Zone::Utc),
            Timestamp::parse("2026-12-01")
        );
        assert_eq!(Timestamp::next_day("2026-12-31").unwrap(), "2027-01-01");
        assert_eq!(Zone::Utc.label(), "UTC");
    }
}
