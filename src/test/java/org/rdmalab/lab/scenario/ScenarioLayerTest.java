package org.rdmalab.lab.scenario;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The scenarios run on the lab's sessions: they reach devices only through {@code lab} (its steps,
 * traffic and QP requests), never a backend, the UI or the CLI, and call no verb themselves.
 */
class ScenarioLayerTest {

    private static final JavaClasses SCENARIOS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.rdmalab.lab.scenario");

    /** The verbs objects whose methods are verbs (ibv_post_send, ibv_modify_qp, ibv_poll_cq, ...). */
    private static final Set<String> VERBS_OBJECTS = Set.of("org.rdmalab.verbs.Device", "org.rdmalab.verbs.Context",
            "org.rdmalab.verbs.ProtectionDomain", "org.rdmalab.verbs.MemoryRegion",
            "org.rdmalab.verbs.CompletionQueue", "org.rdmalab.verbs.QueuePair", "org.rdmalab.verbs.RcPath",
            "org.rdmalab.verbs.PacketObservable");

    /** What a scenario may read of a verbs object: values the steps set, no call into the device. */
    private static final Set<String> READ_ONLY = Set.of("qpNum", "address", "rkey", "lkey", "length", "capacity",
            "handle", "accessFlags", "capabilities", "state", "sge", "device", "name", "description", "init");

    @Test
    void scenariosUseTheLabAndTheVerbsVocabularyOnly() {
        classes().that().resideInAPackage("org.rdmalab.lab.scenario..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.rdmalab.verbs..",
                        "org.rdmalab.lab..", "org.rdmalab.control", "org.rdmalab.text")
                .check(SCENARIOS);
    }

    @Test
    void scenariosCallNoVerbThemselves() {
        noClasses().that().resideInAPackage("org.rdmalab.lab.scenario..")
                .should().callMethodWhere(new DescribedPredicate<JavaCall<?>>("a verb of a verbs object") {
                    @Override
                    public boolean test(JavaCall<?> call) {
                        return VERBS_OBJECTS.contains(call.getTargetOwner().getName())
                                && !READ_ONLY.contains(call.getName());
                    }
                })
                .check(SCENARIOS);
    }
}
