package org.rdmalab.control;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The control plane uses the JDK, itself and the verbs value types: no JavaFX, jnr, backend or UI. */
class ControlLayerTest {

    @Test
    void controlDependsOnlyOnTheJdkAndVerbsValueTypes() {
        JavaClasses control = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.rdmalab.control");
        classes().that().resideInAPackage("org.rdmalab.control..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.rdmalab.control..",
                        "org.rdmalab.verbs")
                .because("control must not reach JavaFX, jnr, a backend or the UI (docs/style.md, Layers)")
                .check(control);
    }
}
