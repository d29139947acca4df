//! What a front end runs, written once for both: where it works (`workspace`:
//! root and state dir), staging a plan or applying it at once (`workflow`),
//! resolving a pending action (`resolve`) and custom actions with their handlers
//! (`custom`), and a request's `project` (`project_rules`). The CLI and the MCP server are thin layers over this folder.

pub mod custom;
pub mod project_rules;
pub mod resolve;
pub mod workflow;
pub mod workspace;
