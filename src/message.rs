//! One source for the messages that both front ends show, rendered for each:
//! the CLI speaks of its flags (`--reason TEXT`), the MCP server of its tool
//! fields (`reason`) and tools. A message that needs a front-end word takes a
//! [`Front`] instead of being written twice.

/// Which front end a message is rendered for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Front {
    /// The command line: flags and `ast-edit` subcommands.
    Cli,
    /// The MCP server: tool names and argument fields.
    Mcp,
}

impl Front {
    /// How to name an input field: `--reason` on the CLI, `` `reason` `` over MCP.
    pub fn field(self, name: &str) -> String {
        match self {
            Front::Cli => format!("--{name}"),
            Front::Mcp => format!("`{name}`"),
        }
    }
}
