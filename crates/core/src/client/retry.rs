//! Retry timing: jittered exponential backoff that honours the server's Retry-After.

use super::ClientError;
use rand::Rng;
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
    let jitter = rand::rng().random_range(0.8..1.2);
    capped.mul_f64(jitter)
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
