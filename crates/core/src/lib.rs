//! cairn-core: configuration, model clients, the session loop, tools, plan mode and the
//! plan store. Front ends talk to it only through [`session::spawn`] and the protocol types.

pub mod agents;
pub mod approval;
pub mod client;
pub mod compact;
pub mod config;
pub mod file_search;
pub mod history;
pub mod logging;
pub mod mcp;
pub mod model_family;
pub mod plan_mode;
pub mod plans;
pub mod prompt;
pub mod rollout;
pub mod sandbox;
pub mod session;
pub mod tools;
pub mod web;

pub use config::{Config, ConfigError, ConfigOverrides};
pub use session::{SessionHandle, SessionOptions, resume, spawn};
