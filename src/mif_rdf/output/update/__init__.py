"""Write-back of SPARQL Update (moving into modules by job; see :mod:`.plan` for now)."""

from mif_rdf.output.update.plan import FileChange as FileChange
from mif_rdf.output.update.plan import UpdateResult as UpdateResult
from mif_rdf.output.update.plan import apply_plan as apply_plan
from mif_rdf.output.update.plan import check_update_safety as check_update_safety
from mif_rdf.output.update.plan import is_new_memory_graph as is_new_memory_graph
from mif_rdf.output.update.plan import new_memory_file as new_memory_file
from mif_rdf.output.update.plan import new_memory_path as new_memory_path
from mif_rdf.output.update.plan import plan_changes as plan_changes
from mif_rdf.output.update.plan import plan_update as plan_update
from mif_rdf.output.update.plan import update_bundle as update_bundle
from mif_rdf.output.update.plan import validation_refusals as validation_refusals
from mif_rdf.output.update.plan import write_changes as write_changes
