"""The one exception type the exporter raises for problems with the model or the options."""


class ExportError(Exception):
    """A model, argument or option that cannot be written to an .ltfx archive.

    The message is one line that names its context: the module path, the graph node, the
    argument position or the tensor key (``module 'blocks.0': node 'add': args[1]: ...``).
    """
