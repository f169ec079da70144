"""From parsed memories to RDF: the JSON-LD projection, the fast walker, the pyld reference path, the layout graph and the way back."""
