"""tensorgen's generator: schema YAML -> validated, immutable model -> C++ via Jinja2.

Pipeline: loader (YAML with lines) -> schema_parser + parse_entries (typed model) ->
validate (rules across fields and entries) -> registry (the model) -> render (templates,
writer). See schemas/README.md for the schema keys and codegen/main.py for the CLI.
"""
