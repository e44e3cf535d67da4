"""Informix values on the wire, one module per job.

* typeinfo      -- TypeCode, ColumnType, qualifiers, DDL type text: the
                   shared type descriptions both ends of the wire use;
* scalars       -- one value's bytes <-> Python (base-100 DECIMAL/MONEY,
                   DATETIME, INTERVAL, INT8, DATE, text);
* rowdecode     -- generated per-shape row decoders (the fetch hot path),
  rowdecode_ref -- and their plain reference;
* packedcells   -- the generated code of their DECIMAL/MONEY/DATETIME/
                   INTERVAL cells, straight from the digit pairs;
* rowencode     -- generated per-shape row encoders (the emulator's serve
  rowencode_ref -- hot path), and their plain reference;
* params        -- SQ_BIND parameter blocks, encoded and read;
* codegen       -- the compile helpers the generated codecs share.

Import the public names from ``informix_stream.codecs``, the stable
surface; these modules may be rearranged.  Nothing in this package imports
anything of the driver or the emulator beyond errors and framing.
"""
