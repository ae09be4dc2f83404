//! Retry timing: jittered exponential backoff that honours the server's Retry-After.

use super::ClientError;
use std::time::Duration;

const BASE_DELAY: Duration = Duration::from_millis(200);
const MAX_DELAY: Duration = Duration::from_secs(30);

/// How long to wait before retry number `attempt` (1-based) after `error`.
///
/// The server's Retry-After wins when given (capped at one minute so a bad header cannot hang
/// a session); otherwise 200 ms doubling per attempt, with ±20 % jitter so many clients do not
/// retry in lockstep.
pub fn backoff(attempt: u32, error: &ClientError) -> Duration {
    if let Some(after) = error.retry_after() {
        return after.min(Duration::from_secs(60));
    }
    let exp = BASE_DELAY.saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
    let capped = exp.min(MAX_DELAY);
    capped.mul_f64(jitter())
}

/// A factor in 0.8..1.2, different at every call. Jitter needs no quality randomness: std's
/// randomly keyed hasher (new keys per `RandomState`) is enough, without a dependency.
fn jitter() -> f64 {
    use std::hash::BuildHasher;
    let bits = std::collections::hash_map::RandomState::new().hash_one(0u8);
    0.8 + 0.4 * (bits >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let err = ClientError::Incomplete;
        let first = backoff(1, &err);
        assert!(first >= Duration::from_millis(160) && first <= Duration::from_millis(240));
        let third = backoff(3, &err);
        assert!(third >= Duration::from_millis(640) && third <= Duration::from_millis(960));
        assert!(backoff(40, &err) <= MAX_DELAY.mul_f64(1.2));
    }

    #[test]
    fn jitter_stays_in_range_and_varies() {
        let factors: Vec<f64> = (0..200).map(|_| jitter()).collect();
        assert!(
            factors.iter().all(|f| (0.8..1.2).contains(f)),
            "{factors:?}"
        );
        let distinct: std::collections::BTreeSet<u64> =
            factors.iter().map(|f| f.to_bits()).collect();
        assert!(distinct.len() > 150, "{} distinct", distinct.len());
    }

    #[test]
    fn retry_after_wins() {
        let err = ClientError::Http {
            status: 429,
            message: String::new(),
            retry_after: Some(Duration::from_millis(1500)),
            retryable: true,
        };
        assert_eq!(backoff(1, &err), Duration::from_millis(1500));
    }
}
