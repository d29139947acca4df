"""An agent's calls through the official MCP Python SDK, which checks every
result that is not an error against the outputSchema its tool declares and
raises on one it refuses ("Invalid structured content returned by tool ...").
Run by tests/it/mcp_sdk.rs: argv[1] is the ast-edit binary, argv[2] the root.
Each call prints `<tool> <kind> ok`; the first refused result ends the run
with a traceback and a non-zero exit."""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(binary: str, root: str) -> None:
    params = StdioServerParameters(command=binary, args=["mcp", "--root", root])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(tool: str, kind: str, args: dict) -> dict:
                result = await session.call_tool(tool, args)
                error = bool(result.isError)
                if error != kind.startswith("error"):
                    raise SystemExit(f"{tool} {kind}: isError is {error}: {result.content}")
                print(f"{tool} {kind} ok", flush=True)
                return result.structuredContent or {}

            edit = {"ops": [{"pat": "old_name($A)", "out": "new_name($A)"}], "lang": "py"}
            staged = await call("ast_edit", "staged", edit)
            await call("ast_edit", "no-changes", {"ops": [{"pat": "nothing_here($A)", "out": "x"}], "lang": "py"})
            await call("ast_edit", "error", {"ops": [{"pat": "foo(", "out": "x"}], "lang": "py"})
            await call("ast_pending", "list", {})
            await call("ast_pending", "page", {"id": staged["id"], "limit": 1})
            await call("ast_pending", "diff-page", {"id": staged["id"], "fileOffset": 0, "diffOffset": 1})
            await call("resolve", "apply", {"action": "apply", "reason": "rename", "extra": {"files": ["a.py"]}})
            await call("resolve", "apply-rest", {"action": "apply", "reason": "rename"})
            await call("ast_undo", "undo", {})
            await call("ast_undo", "undo-id", {"id": staged["id"]})
            await call("resolve", "error-nothing-pending", {"action": "apply", "reason": "r"})
            await call("ast_search", "page", {"ops": [{"pat": "old_name($A)"}], "lang": "py", "limit": 1})
            await call("ast_tree", "pattern", {"code": "f($A)", "lang": "py", "isPattern": True})
            await call("ast_tree", "error", {"code": "x", "lang": "klingon"})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
