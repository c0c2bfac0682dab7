"""The build's one addition to pyproject.toml: the compiled engine core (platform/engine-core),
an optional extension. Where a Rust toolchain (cargo) is found it is built by setuptools-rust
with no bindings (a plain C library, loaded by ``mallows.core`` with ctypes); where none is, or
its build fails, the install goes on and mallows runs on its pure-Python engine."""

from setuptools import setup

try:
    from setuptools_rust import Binding, RustExtension
except ImportError:  # a build without build isolation and without setuptools-rust
    extensions = []
else:
    extensions = [
        RustExtension(
            "mallows._engine_core",
            path="platform/engine-core/Cargo.toml",
            binding=Binding.NoBinding,
            optional=True,
            debug=False,  # an editable install would otherwise build it unoptimised
            py_limited_api=False,
        )
    ]

setup(rust_extensions=extensions)
