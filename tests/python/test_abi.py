"""The package's mirror of the C ABI (python/infinirt/_abi.py) against the headers it mirrors:
every enum, struct and exported function of include/infinicore.h and include/infinirt.h is there
with the same names (parsed from the headers), and the same values, sizes and offsets (printed by
a C program built here with the system compiler)."""
import ctypes
import os
import re
import subprocess

import pytest

from conftest import INCLUDE_DIR, cc_path
from infinirt import _abi

HEADERS = [os.path.join(INCLUDE_DIR, h) for h in ("infinicore.h", "infinirt.h")]


def header_text():
    text = "\n".join(open(h).read() for h in HEADERS)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def header_enums():
    """typedef name -> [constant names] of every `typedef enum { ... } name;`."""
    out = {}
    for body, name in re.findall(r"typedef\s+enum\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", header_text(), flags=re.S):
        out[name] = [m.group(1) for m in re.finditer(r"(?:^|,)\s*([A-Z_][A-Z0-9_]*)\s*(?:=|,|$)", body.strip())]
    return out


def header_structs():
    """typedef name -> [field names] of every `typedef struct { ... } name;`."""
    out = {}
    for body, name in re.findall(r"typedef\s+struct\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", header_text(), flags=re.S):
        fields = []
        for decl in body.split(";"):
            decl = decl.strip()
            if decl:
                fields.append(re.match(r".*?(\w+)\s*(\[[^\]]*\]\s*)*$", decl, flags=re.S).group(1))
        out[name] = fields
    return out


def header_functions():
    """name -> parameter count of every `__export <type> name(...);`."""
    out = {}
    for name, params in re.findall(r"__export\s+[\w\s\*]+?\b(infinirt\w+)\s*\(([^)]*)\)\s*;", header_text()):
        params = params.strip()
        out[name] = 0 if params in ("", "void") else params.count(",") + 1
    return out


def test_every_enum_is_mirrored():
    enums = header_enums()
    assert "infiniStatus_t" in enums and "infinirtModuleFormat_t" in enums
    for cname, constants in enums.items():
        assert cname in _abi.ENUMS, "%s is in the headers but not in python/infinirt/_abi.py ENUMS" % cname
        cls, prefix = _abi.ENUMS[cname]
        mirrored = sorted(prefix + m for m in cls.__members__)
        assert mirrored == sorted(constants), "%s: headers %s, _abi.py %s" % (cname, constants, mirrored)
    assert not set(_abi.ENUMS) - set(enums), "_abi.py mirrors enums the headers do not have"


def test_every_struct_is_mirrored_field_by_field():
    structs = header_structs()
    mirrored = {s._c_name_: s for s in _abi.STRUCTS}
    assert "infinirtDeviceProperties_t" in structs
    for cname, fields in structs.items():
        assert cname in mirrored, "%s is in the headers but not in python/infinirt/_abi.py STRUCTS" % cname
        assert [f for f, _ in mirrored[cname]._fields_] == fields, cname
    assert not set(mirrored) - set(structs)


def test_every_function_is_declared_with_its_parameter_count():
    functions = header_functions()
    assert len(functions) > 40
    for name, count in functions.items():
        assert name in _abi.FUNCTIONS, "%s is exported but not in python/infinirt/_abi.py FUNCTIONS" % name
        assert len(_abi.FUNCTIONS[name][1]) == count, name
    assert not set(_abi.FUNCTIONS) - set(functions)


def test_defines():
    text = open(HEADERS[1]).read()
    for name, value in _abi.DEFINES.items():
        m = re.search(r"#define\s+%s\s+(0x[0-9a-fA-F]+|\d+)u?" % name, text)
        assert m and int(m.group(1), 0) == value, name


def test_values_sizes_and_offsets_as_the_c_compiler_sees_them(tmp_path):
    cc = cc_path()
    if cc is None:
        pytest.skip("no system C compiler (cc) to print the headers' layouts")
    lines = ['#include <infinirt.h>', '#include <stddef.h>', '#include <stdio.h>', 'int main(void) {']
    expected = []
    for cname, (cls, prefix) in _abi.ENUMS.items():
        lines.append('    printf("sizeof %s %%zu\\n", sizeof(%s));' % (cname, cname))
        expected.append("sizeof %s %d" % (cname, ctypes.sizeof(_abi.c_enum)))
        for m, v in cls.__members__.items():
            lines.append('    printf("%s %%lld\\n", (long long)%s);' % (prefix + m, prefix + m))
            expected.append("%s %d" % (prefix + m, int(v)))
    for name, value in _abi.DEFINES.items():
        lines.append('    printf("%s %%lld\\n", (long long)%s);' % (name, name))
        expected.append("%s %d" % (name, value))
    for s in _abi.STRUCTS:
        c = s._c_name_
        lines.append('    printf("sizeof %s %%zu\\n", sizeof(%s));' % (c, c))
        lines.append('    printf("alignof %s %%zu\\n", _Alignof(%s));' % (c, c))
        expected.append("sizeof %s %d" % (c, ctypes.sizeof(s)))
        expected.append("alignof %s %d" % (c, ctypes.alignment(s)))
        for f, _ in s._fields_:
            lines.append('    printf("%s.%s %%zu %%zu\\n", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                         % (c, f, c, f, c, f))
            d = getattr(s, f)
            expected.append("%s.%s %d %d" % (c, f, d.offset, d.size))
    for name, (_, argtypes) in _abi.FUNCTIONS.items():
        lines.append('    (void)&%s;' % name)  # declared (a typo here fails to compile)
    lines += ['    return 0;', '}']
    src = tmp_path / "abi.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "abi"
    r = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-I", INCLUDE_DIR, str(src), "-o", str(exe)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert got == expected
