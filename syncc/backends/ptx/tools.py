"""NVIDIA's tools, where they are: ptxas (PTX → cubin) and nvdisasm or cuobjdump (cubin → SASS).

They are looked for on PATH, then in the pip wheels of the `cuda-tools` extra
(`nvidia-cuda-nvcc`, `nvidia-cuda-nvdisasm`, `nvidia-cuda-cuobjdump`), which put
them under site-packages/nvidia/*/bin. A tool that is not there is None, and what
needs it says so (the tests skip with that reason).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sysconfig
from functools import cache
from pathlib import Path


@cache
def find_tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    purelib = Path(sysconfig.get_paths()["purelib"])
    for candidate in sorted(purelib.glob(f"nvidia/*/bin/{name}")):
        if candidate.is_file():
            return str(candidate)
    return None


class ToolError(Exception):
    """A tool is missing, or it failed (its message says which)."""


def run_tool(name: str, args: list[str], timeout: float = 120) -> str:
    tool = find_tool(name)
    if tool is None:
        raise ToolError(f"`{name}` is not on PATH and the cuda-tools extra is not installed "
                        f"(pip install 'syncc[cuda-tools]')")
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise ToolError(f"{name} failed: {(p.stderr or p.stdout).strip()}")
    return p.stdout


@cache
def ptxas_archs() -> tuple[str, ...]:
    """The sm_XX architectures the ptxas found supports (CUDA 13 dropped sm_70 and sm_72)."""
    if find_tool("ptxas") is None:
        return ()
    text = subprocess.run([find_tool("ptxas"), "--help"], capture_output=True, text=True).stdout
    m = re.search(r"--gpu-name.*?Allowed values for this option:\s*(.*?)\.\s*\n", text, re.S)
    if not m:
        return ()
    return tuple(sorted(set(re.findall(r"sm_\d+", m.group(1))), key=lambda a: int(a[3:])))
