"""The package's types: annotated public functions, a stub of the native module that matches
it, and the py.typed marker that tells type checkers to use them."""
import ast
import inspect
import pathlib

import ssdlab
import ssdlab.plot
from ssdlab import _native

PKG = pathlib.Path(ssdlab.__file__).parent


def test_the_package_is_marked_typed_and_ships_the_native_stub():
    assert (PKG / "py.typed").is_file()
    assert (PKG / "_native.pyi").is_file()


def _public_callables():
    for name in ssdlab.__all__:
        obj = getattr(ssdlab, name)
        if inspect.isfunction(obj):
            yield f"ssdlab.{name}", obj
        elif inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(member, property):
                    yield f"ssdlab.{name}.{attr}", member.fget
                elif inspect.isfunction(member):
                    yield f"ssdlab.{name}.{attr}", member
    for name, obj in vars(ssdlab.plot).items():
        if inspect.isfunction(obj) and not name.startswith("_") and obj.__module__ == "ssdlab.plot":
            yield f"ssdlab.plot.{name}", obj


def test_every_public_function_annotates_its_parameters_and_return():
    missing = []
    seen = 0
    for name, fn in _public_callables():
        seen += 1
        sig = inspect.signature(fn)
        for p in sig.parameters.values():
            if p.name != "self" and p.annotation is inspect.Parameter.empty:
                missing.append(f"{name}({p.name})")
        if sig.return_annotation is inspect.Signature.empty:
            missing.append(f"{name} -> ?")
    assert seen >= 20, seen
    assert not missing, missing


def test_the_native_stub_declares_what_the_module_has_with_its_parameters():
    tree = ast.parse((PKG / "_native.pyi").read_text())
    stub_funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    stub_names = set(stub_funcs)
    stub_names |= {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    stub_names |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    native = {n for n in dir(_native) if not (n.startswith("__") and n != "__version__")}
    assert stub_names == native, (sorted(stub_names - native), sorted(native - stub_names))
    for name, node in stub_funcs.items():
        sig = inspect.signature(getattr(_native, name))
        args = node.args.args
        assert [a.arg for a in args] == list(sig.parameters), name
        # The same parameters take defaults.
        with_default = [p.name for p in sig.parameters.values() if p.default is not inspect.Parameter.empty]
        assert [a.arg for a in args[len(args) - len(node.args.defaults):]] == with_default, name
