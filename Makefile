# Builds the `occam` engine. OpenBench convention: `make EXE=<path>` builds the
# release binary and copies it to <path>. Plain `make` leaves ./occam.
#
#   make                      release build, copied to ./occam
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

BUILT := $(TARGET_DIR)/release/occam$(BIN_SUFFIX)

.PHONY: all frozen pgo

all:
	$(CARGO) build --release --locked -p occam --bin occam
	cp $(BUILT) $(EXE)

frozen:
	$(CARGO) build --release --locked -p occam --bin occam --features frozen
	cp $(BUILT) $(EXE)

pgo:
	scripts/build_pgo.sh $(abspath $(EXE))
