#!/bin/bash
# Download vLLM releases and their pinned flashinfer-python, unzip the python sources.
cd /work/vllm-src
for v in 0.24.0 0.25.0 0.25.1 0.26.0 0.27.0 0.28.0 0.29.0 0.30.0 0.31.0 0.32.0 0.33.0; do
  if [ ! -f vllm-$v/DONE ]; then
    pip download vllm==$v --no-deps -d wheels/vllm-$v -q || { echo "FAIL vllm $v"; continue; }
    mkdir -p vllm-$v && (cd vllm-$v && unzip -q -o ../wheels/vllm-$v/*.whl 'vllm/*.py' '*.dist-info/METADATA' ) && touch vllm-$v/DONE
    rm -f wheels/vllm-$v/*.whl
    echo "ok vllm $v"
  fi
done
for f in 0.6.12 0.6.13 0.6.14 0.6.16.post3 0.6.18 0.6.18.post1 0.7.0.post1 0.7.2.post1; do
  if [ ! -f flashinfer-$f/DONE ]; then
    pip download flashinfer-python==$f --no-deps -d wheels/fi-$f -q || { echo "FAIL fi $f"; continue; }
    mkdir -p flashinfer-$f && (cd flashinfer-$f && for w in ../wheels/fi-$f/*; do case $w in *.whl) unzip -q -o $w 'flashinfer/*.py' 'flashinfer/**/*.py' '*.dist-info/METADATA';; *.tar.gz) tar xzf $w;; esac; done) && touch flashinfer-$f/DONE
    echo "ok fi $f"
  fi
done
echo ALLDONE
