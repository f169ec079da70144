"""The ground every stage stands on: errors and problems, limits, names, RDF prefixes, the JSON-LD context, formats,
patterns, atomic output files."""
