"""Not the Python package. This folder holds the C++ sources of libinfinirt (the loader).

Python imports it as `infinirt` only when it runs with the repository's root as its current folder
(sys.path[0] is the current folder); without this file it would import the folder as an empty
namespace package, and `infinirt.devices()` would fail with an AttributeError. The package is
python/infinirt/, installed by `cmake --install build --prefix <venv>` (docs/python.md).
"""
raise ImportError(
    "'import infinirt' found the repository's C++ folder infinirt/ (you are running Python from the "
    "repository's root), not the Python package. Run Python from another folder, or with -P "
    "(Python 3.11+) so that the current folder is not searched; the package is python/infinirt/, "
    "installed by `cmake --install build --prefix <venv>` (docs/python.md).",
    name="infinirt")
