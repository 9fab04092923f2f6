# Builds the `occam` engine. OpenBench convention: `make EXE=<path>` builds the
# release binary and copies it to <path>. Plain `make` leaves ./occam.
#
#   make                      release build, copied to ./occam (x86-64 Linux: not
#                             position-independent, see TARGET_FLAGS)
#   make EXE=/tmp/occam-dev   release build, copied to /tmp/occam-dev
#   make frozen EXE=...       every parameter compiled in as a constant (--features frozen)
#   make pgo EXE=...          profile-guided build (scripts/build_pgo.sh; needs
#                             `rustup component add llvm-tools`)

CARGO ?= cargo
EXE ?= occam
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)

ifeq ($(OS),Windows_NT)
BIN_SUFFIX := .exe
else
BIN_SUFFIX :=
endif

# A non-PIE executable on x86-64 Linux: compiled with `-C relocation-model=static`,
# a table lookup (attack tables, piece-square values, Zobrist keys, histories) is one
# instruction with an absolute address instead of a RIP-relative `lea` and an indexed
# load: 2.8% fewer instructions (its speed: docs/MEASUREMENTS.md). Named as the `--target`
# so that the flag reaches only the engine's crates, not the proc macros cargo builds
# for the host (shared objects, which must be position-independent).
HOST := $(shell rustc -vV 2>/dev/null | sed -n 's/^host: //p')
ifeq ($(HOST),x86_64-unknown-linux-gnu)
TARGET_FLAGS := --target $(HOST) --config 'target.$(HOST).rustflags=["-Crelocation-model=static"]'
BUILT := $(TARGET_DIR)/$(HOST)/release/occam
else
TARGET_FLAGS :=
BUILT := $(TARGET_DIR)/release/occam$(BIN_SUFFIX)
endif

.PHONY: all frozen pgo

all:
	$(CARGO) build --release --locked -p occam --bin occam $(TARGET_FLAGS)
	cp $(BUILT) $(EXE)

frozen:
	$(CARGO) build --release --locked -p occam --bin occam --features frozen $(TARGET_FLAGS)
	cp $(BUILT) $(EXE)

pgo:
	scripts/build_pgo.sh $(abspath $(EXE))
