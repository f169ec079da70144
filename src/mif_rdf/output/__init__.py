"""Everything that leaves a loaded bundle: serializers, the export policy, streamed and native export, conversion, and write-back to the markdown files."""
