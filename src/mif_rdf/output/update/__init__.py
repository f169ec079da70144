"""Write-back: a SPARQL Update over a bundle's dataset, applied to its markdown files.

The markdown is canonical (spec Invariant 2), so an update is a way to edit
files, not a change to a store.  :func:`plan_update` runs the update on the
loaded dataset, compares every quad before and after, and turns the change of
each memory's graph back into frontmatter and body:

* a top-level key keeps its authored value unless a changed triple hangs
  under it (directly on the memory node, or on a node reached through it);
  a changed key takes the value the graph now says (:mod:`mif_rdf.rdf.reverse`),
  with the author's list order kept for the items that stay;
* the result must project to exactly the updated graph (the same check the
  reverse path uses, :func:`mif_rdf.rdf.layout.template_fits`): the file written
  is the file that loads to what the user asked for, or nothing is written;
* the text is edited, not dumped (:mod:`mif_rdf.output.frontmatter_edit`): every byte
  of a file but the changed values stays.

A change the markdown cannot hold is a refusal naming the triple and why
(a triple in the links or layout graph, which are derived; a predicate no
frontmatter key maps to; a literal of the wrong datatype for its key; a
memory's IRI, that is its ``id``; a memory under a read-only prefix or a
``_local`` namespace).  One refusal and no file is written.

Files are replaced atomically, each on its own (a temporary file in the same
folder, then a rename), only after every change has been computed and checked.

The modules, by job: :mod:`.plan` (plan and apply an update), :mod:`.edit`
(the new text of a changed memory's file), :mod:`.new_memory` (the file of
an inserted memory), :mod:`.refusals` (protected files, validation) and
:mod:`.changes` (the file changes and writing them).
"""

from mif_rdf.output.update.changes import FileChange, UpdateResult, write_changes
from mif_rdf.output.update.new_memory import is_new_memory_graph, new_memory_file, new_memory_path
from mif_rdf.output.update.plan import apply_plan, check_update_safety, plan_changes, plan_update, update_bundle
from mif_rdf.output.update.refusals import validation_refusals

__all__ = [
    "FileChange",
    "UpdateResult",
    "apply_plan",
    "check_update_safety",
    "is_new_memory_graph",
    "new_memory_file",
    "new_memory_path",
    "plan_changes",
    "plan_update",
    "update_bundle",
    "validation_refusals",
    "write_changes",
]
