"""Engines: a client for UCI and UCCI engines, xqdb's built-in engine, and analysis.

In the shape of python-chess's ``chess.engine``, for Xiangqi:

>>> import sys
>>> from xqdb import Position
>>> from xqdb.engine import Engine, Limit
>>> with Engine.popen([sys.executable, "-m", "xqdb", "engine"]) as engine:
...     info = engine.analyse(Position(), Limit(depth=1))
>>> info.score.red()
Cp(15)
"""

from .client import (
    Engine, EngineError, EngineOption, EngineTerminatedError, EngineTimeoutError, Info,
)
from .dialects import DIALECTS, Dialect, detect_dialect
from .runner import (
    BUILTIN, EngineChoice, EngineGaveUpError, EngineSpec, PositionFailedError, SupervisedEngine,
    choose_engine, parse_options,
)
from .score import Cp, Limit, Mate, MateGiven, PovScore, PovWdl, Score, Wdl

__all__ = [
    "Engine", "EngineError", "EngineOption", "EngineTerminatedError", "EngineTimeoutError",
    "Info", "DIALECTS", "Dialect", "detect_dialect", "BUILTIN", "EngineChoice", "EngineSpec",
    "EngineGaveUpError", "PositionFailedError", "SupervisedEngine", "choose_engine", "parse_options", "Cp", "Limit",
    "Mate", "MateGiven", "PovScore", "PovWdl", "Score", "Wdl",
]
