"""setup.py: the metadata is in pyproject.toml; this adds the modules compiled with mypyc
when the build can compile them (see build_backend.py)."""

import sys

from setuptools import setup

from build_backend import setup_options

setup(**setup_options(sys.argv[1:]))
