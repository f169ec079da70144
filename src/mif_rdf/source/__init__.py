"""Reading a bundle's files: discovery, frontmatter and markdown parsing, YAML, identities (ids, IRIs, paths), integrity hashes."""
