package org.rdmalab.lab.scenario;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The scenarios reach devices only through the verbs API: no backend, no UI, no CLI. */
class ScenarioLayerTest {

    @Test
    void scenariosUseOnlyTheVerbsApi() {
        JavaClasses scenarios = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.rdmalab.lab.scenario");
        classes().that().resideInAPackage("org.rdmalab.lab.scenario..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.rdmalab.verbs..",
                        "org.rdmalab.lab.scenario..")
                .check(scenarios);
    }
}
