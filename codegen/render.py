"""Renders the templates over the validated model and writes what changed.

Conventions for templates/ (see templates/README.md once it exists):
  - every top-level `<Name>.j2` renders to `<out_dir>/<Name>` ("Operators.h.j2" makes
    "Operators.h"); files whose name starts with `_` are macro libraries to import, not
    outputs;
  - a template listed in SHARDED_TEMPLATES renders into that many files instead,
    "ConformanceTests.cpp.j2" with 4 shards making ConformanceTests_0.cpp .. _3.cpp, each
    over its shard of the operators (see writer.shard);
  - each output starts with the banner naming its template.
A template sees: `registry` (the Registry), `functions` (all operators, or the shard's),
`groups` (structured groups), `cpp` (the cpp_types module), `api` (the cpp_api module),
`operators` (cpp_api.Operator for every overload), `shard_operators` (the shard's),
`kernels` (every hand-written function to declare), `autograd_kernels` and
`backward_nodes` (codegen.autograd; `shard_autograd_kernels` and `shard_backward_nodes` for
the shard), `shard_plans` (codegen.conformance, the shard's), `families` (the pointwise kernel
families with their operators, codegen.kernel_families), `template_name`, `shard_index` and
`shard_count` (0 and 1 when not sharded), and `resume_generated_line`, written after a pasted
derivative formula (see Note [Formulas keep their line] in codegen/line_directives.py).
"""

from __future__ import annotations

from pathlib import Path

from codegen import autograd, batching, conformance, cpp_api, cpp_types, kernel_families, scalar_overloads
from codegen.line_directives import RESUME_GENERATED, resolve_resume_markers
from codegen.registry import Registry
from codegen.writer import make_environment, shard, with_banner, write_if_changed

# Template name -> number of output shards. Fixed, so the build knows every output's name.
# Shards keep one new operator from recompiling every operator's glue.
SHARDED_TEMPLATES: dict[str, int] = {
    "Operators.cpp.j2": 4,
    "RegisterCPU.cpp.j2": 4,
    "RegisterCUDA.cpp.j2": 2,
    "RegisterCompositeExplicitAutograd.cpp.j2": 2,
    "RegisterCompositeImplicitAutograd.cpp.j2": 2,
    "VariableType.cpp.j2": 4,
    "AutogradFunctions.cpp.j2": 4,
    "ConformanceTests.cpp.j2": 4,
}

TEMPLATE_SUFFIX = ".j2"


def discover_templates(templates_dir: Path) -> list[str]:
    """The output templates in `templates_dir`, sorted; none when the folder is absent."""
    if not templates_dir.is_dir():
        return []
    return sorted(p.name for p in templates_dir.iterdir()
                  if p.is_file() and p.name.endswith(TEMPLATE_SUFFIX)
                  and not p.name.startswith("_"))


# Templates rendered once per kernel family whose CPU loop is a template on the operator:
# PointwiseKernelsCPU_binary.cpp. Each family's loop instantiations get a translation unit
# of their own, as the hand-written kernels had: in one unit with the other families' GCC
# inlined less into the loops (a 1-element add ran 7 more instructions).
PER_TEMPLATE_FAMILY_TEMPLATES = ("PointwiseKernelsCPU.cpp.j2",)


def template_families() -> list[str]:
    return [name for name, family in kernel_families.FAMILIES.items() if family.cpu_template]


def output_names(template_name: str) -> list[str]:
    """The files one template makes: ["Operators.h"], or one per shard or family."""
    name = template_name[: -len(TEMPLATE_SUFFIX)]
    stem, dot, suffix = name.partition(".")
    if template_name in PER_TEMPLATE_FAMILY_TEMPLATES:
        return [f"{stem}_{family}{dot}{suffix}" for family in template_families()]
    count = SHARDED_TEMPLATES.get(template_name)
    if count is None:
        return [name]
    return [f"{stem}_{index}{dot}{suffix}" for index in range(count)]


def render_all(model: Registry, templates_dir: Path | str, out_dir: Path | str) -> list[Path]:
    """Renders every template; returns every output path, written or already up to date.
    Renders nothing when `templates_dir` holds no templates."""
    templates_dir, out_dir = Path(templates_dir), Path(out_dir)
    templates = discover_templates(templates_dir)
    if not templates:
        return []
    environment = make_environment(templates_dir)
    operators = cpp_api.operators(model.functions)
    kernels = cpp_api.kernel_declarations(model)
    autograd_kernels = autograd.autograd_kernels(model)
    backward_nodes = autograd.backward_nodes(autograd_kernels)
    batching_rules = batching.batching_rules(model)
    families = kernel_families.family_groups(model.functions)
    scalar_overload_list = scalar_overloads.scalar_overloads(model.functions)
    conformance_plans = conformance.plans(model, {k.op.f.full_name for k in autograd_kernels})
    outputs: list[Path] = []
    for template_name in templates:
        template = environment.get_template(template_name)
        names = output_names(template_name)
        shards = shard(model.functions, len(names)) if len(names) > 1 else [list(model.functions)]
        if template_name in PER_TEMPLATE_FAMILY_TEMPLATES:
            shards = [list(model.functions)] * len(names)
        for index, (name, functions) in enumerate(zip(names, shards)):
            in_shard = {f.full_name for f in functions}
            shard_autograd_kernels = [k for k in autograd_kernels if k.op.f.full_name in in_shard]
            text = template.render(
                registry=model, functions=functions, groups=model.structured_groups,
                cpp=cpp_types, api=cpp_api, operators=operators, kernels=kernels,
                shard_operators=cpp_api.operators(functions), template_name=template_name,
                autograd_kernels=autograd_kernels, backward_nodes=backward_nodes,
                shard_autograd_kernels=shard_autograd_kernels,
                shard_backward_nodes=[n for n in backward_nodes if n.op_name in in_shard],
                shard_plans=[p for p in conformance_plans if p.name in in_shard],
                batching_rules=batching_rules, resume_generated_line=RESUME_GENERATED, families=families,
                family_name=template_families()[index] if template_name in PER_TEMPLATE_FAMILY_TEMPLATES else None,
                scalar_overloads=scalar_overload_list,
                shard_index=index, shard_count=len(names))
            path = out_dir / name
            write_if_changed(path, resolve_resume_markers(with_banner(template_name, text), str(path)))
            outputs.append(path)
    return outputs
