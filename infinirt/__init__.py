"""Not the Python package: this folder holds the C++ sources of libinfinirt (the loader).

Python finds it as `infinirt` when it runs in the repository's root (the current folder comes
first on sys.path). Without this file it would be an empty namespace package whenever the real
package is not installed, and `infinirt.devices()` would fail with an AttributeError. So: if the
real package (python/infinirt/, installed by `cmake --install build --prefix <venv>`) is found
further along sys.path, it is loaded in this one's place; otherwise the import fails saying why.
"""
import importlib.util as _util
import os as _os
import sys as _sys

_here = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
for _entry in list(_sys.path):
    _folder = _os.path.abspath(_entry or _os.getcwd())
    _init = _os.path.join(_folder, "infinirt", "__init__.py")
    if _folder == _here or not _os.path.isfile(_init):
        continue
    _spec = _util.spec_from_file_location("infinirt", _init, submodule_search_locations=[_os.path.dirname(_init)])
    _real = _util.module_from_spec(_spec)
    _sys.modules["infinirt"] = _real  # `import infinirt` returns what sys.modules holds at the end
    _spec.loader.exec_module(_real)
    break
else:
    raise ImportError(
        "'import infinirt' found the repository's C++ folder infinirt/ (Python runs in the repository's "
        "root) and no installed infinirt package: install it (cmake --install build --prefix <venv>, "
        "docs/python.md) and use that venv's python, or run from another folder.",
        name="infinirt")
