"""How deep a TREC run file's deepest topic goes, from one streamed pass over its topic column."""

from __future__ import annotations

import lzma
from pathlib import Path

from .textfiles import compression, open_binary
from .trec import PathLike

__all__ = ["deepest_ranking"]


def deepest_ranking(path: PathLike) -> int | None:
    """The most documents any one topic of a TREC run file lists (one streamed pass).

    Only the topic column is kept, counted per batch and summed per topic at the
    end (memory: the topics, not the rows). For planning how to split the reading of
    a run that is wide (many topics) but shallow, whose grade tensor is far smaller
    than its topic count times a nominal depth suggests. None when the file is not a
    single-space separated text this pass can parse: the reader proper then says
    what is wrong with it.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    path = Path(path)
    options = dict(
        read_options=pacsv.ReadOptions(autogenerate_column_names=True, block_size=1 << 21),
        parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
        convert_options=pacsv.ConvertOptions(
            include_columns=["f0"], column_types={"f0": pa.string()},
            strings_can_be_null=False, null_values=[]),
    )
    try:
        kind = compression(path)
        native = kind is None or kind in ("gzip", "bz2", "zstd") and pa.Codec.is_available(kind)
        counts = []
        with (pa.input_stream(str(path), compression=kind) if native else
              open_binary(path, kind)) as source:
            for batch in pacsv.open_csv(source, **options):
                counts.append(pc.value_counts(batch.column(0)))
    except (pa.ArrowInvalid, OSError, EOFError, lzma.LZMAError):
        return None
    if not counts:
        return None
    both = pa.concat_arrays(counts)
    table = pa.table({"t": both.field("values"), "n": both.field("counts")})
    return int(pc.max(table.group_by("t").aggregate([("n", "sum")])["n_sum"]).as_py())
