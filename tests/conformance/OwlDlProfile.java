// The OWL API's OWL 2 DL profile check on compiled ontology documents, imports resolved through
// an OASIS XML catalog (catalog-v001.xml):
//     java -cp '/usr/share/java/*' OwlDlProfile.java CATALOG FILE...
// Prints one line per violation ("FILE<TAB>violation"), then a summary line per file, and exits 1
// when there is any violation.  Run by tests/conformance/test_upstream_owl.py with Debian's OWL API 5
// (package libowlapi-java; the single-file launcher of Java 11+ compiles it).
import java.io.File;

import javax.xml.parsers.DocumentBuilderFactory;

import org.semanticweb.owlapi.apibinding.OWLManager;
import org.semanticweb.owlapi.model.IRI;
import org.semanticweb.owlapi.model.OWLOntology;
import org.semanticweb.owlapi.model.OWLOntologyManager;
import org.semanticweb.owlapi.profiles.OWL2DLProfile;
import org.semanticweb.owlapi.profiles.OWLProfileReport;
import org.semanticweb.owlapi.profiles.OWLProfileViolation;
import org.semanticweb.owlapi.util.SimpleIRIMapper;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

public class OwlDlProfile {
    public static void main(String[] args) throws Exception {
        File catalog = new File(args[0]).getAbsoluteFile();
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        NodeList entries = factory.newDocumentBuilder().parse(catalog).getElementsByTagNameNS("*", "uri");
        int total = 0;
        for (int i = 1; i < args.length; i++) {
            OWLOntologyManager manager = OWLManager.createOWLOntologyManager();  // one per file: each loads its own imports
            for (int e = 0; e < entries.getLength(); e++) {
                Element entry = (Element) entries.item(e);
                File local = new File(catalog.getParentFile(), entry.getAttribute("uri"));
                manager.getIRIMappers().add(new SimpleIRIMapper(IRI.create(entry.getAttribute("name")), IRI.create(local)));
            }
            OWLOntology ontology = manager.loadOntologyFromOntologyDocument(new File(args[i]));
            OWLProfileReport report = new OWL2DLProfile().checkOntology(ontology);
            for (OWLProfileViolation violation : report.getViolations()) {
                System.out.println(args[i] + "\t" + violation.toString().replace('\n', ' '));
            }
            System.out.println(args[i] + "\tontology " + ontology.getOntologyID() + ", imports closure of "
                + ontology.importsClosure().count() + ", " + report.getViolations().size() + " violations");
            total += report.getViolations().size();
        }
        System.exit(total == 0 ? 0 : 1);
    }
}
