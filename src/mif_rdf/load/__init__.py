"""The loader: running the pipeline over a bundle into a store (memory or Oxigraph), the cache, git revisions."""
