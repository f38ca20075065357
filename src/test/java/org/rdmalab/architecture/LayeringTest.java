package org.rdmalab.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The layers of docs/architecture.md, enforced: a class that reaches across fails the build. */
class LayeringTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.rdmalab");
    }

    @Test
    void coreLayersKnowNoJavaFxAndNoNativeCode() {
        noClasses().that().resideInAnyPackage("org.rdmalab.verbs..", "org.rdmalab.lab..", "org.rdmalab.control..")
                .should().dependOnClassesThat().resideInAnyPackage("javafx..", "jnr..", "com.kenai..", "org.controlsfx..")
                .check(classes);
    }

    @Test
    void verbsKnowsNoBackendAndNoUpperLayer() {
        noClasses().that().resideInAPackage("org.rdmalab.verbs..")
                .should().dependOnClassesThat().resideInAnyPackage("org.rdmalab.softroce..", "org.rdmalab.ibverbs..",
                        "org.rdmalab.lab..", "org.rdmalab.control..", "org.rdmalab.app..", "org.rdmalab.cli..")
                .check(classes);
    }

    @Test
    void softRocesNetworkLayerKnowsNoRoce() {
        noClasses().that().resideInAPackage("org.rdmalab.softroce.net..")
                .should().dependOnClassesThat().resideInAnyPackage("org.rdmalab.softroce",
                        "org.rdmalab.wire..", "org.rdmalab.capture..")
                .check(classes);
    }

    @Test
    void backendsNeverImportEachOther() {
        noClasses().that().resideInAPackage("org.rdmalab.softroce..")
                .should().dependOnClassesThat().resideInAPackage("org.rdmalab.ibverbs..")
                .check(classes);
        noClasses().that().resideInAPackage("org.rdmalab.ibverbs..")
                .should().dependOnClassesThat().resideInAPackage("org.rdmalab.softroce..")
                .check(classes);
    }

    @Test
    void upperLayersReachBackendsOnlyThroughTheVerbsApi() {
        noClasses().that().resideInAnyPackage("org.rdmalab.app..", "org.rdmalab.lab..", "org.rdmalab.control..")
                .should().dependOnClassesThat().resideInAnyPackage("org.rdmalab.softroce..", "org.rdmalab.ibverbs..")
                .check(classes);
    }

    @Test
    void controlAndLabKnowNoUserInterface() {
        noClasses().that().resideInAnyPackage("org.rdmalab.lab..", "org.rdmalab.control..", "org.rdmalab.softroce..")
                .should().dependOnClassesThat().resideInAnyPackage("org.rdmalab.app..", "org.rdmalab.cli..", "picocli..")
                .check(classes);
    }

    @Test
    void translatedTextIsTheGroundFloorAndKnowsNothingOfTheProject() {
        classes().that().resideInAPackage("org.rdmalab.text..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("org.rdmalab.text..", "java..")
                .check(classes);
    }

    @Test
    void theWireFloorKnowsNoBackendAndNoUpperLayer() {
        classes().that().resideInAnyPackage("org.rdmalab.wire..", "org.rdmalab.capture..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("org.rdmalab.wire..", "org.rdmalab.capture..",
                        "java..")
                .check(classes);
        noClasses().that().resideInAPackage("org.rdmalab.wire..")
                .should().dependOnClassesThat().resideInAPackage("org.rdmalab.capture..")
                .check(classes);
    }

    @Test
    void theLadderIsUiFreeAndKnowsNoBackendNorTheLab() {
        noClasses().that().resideInAPackage("org.rdmalab.ladder..")
                .should().dependOnClassesThat().resideInAnyPackage("org.rdmalab.softroce..", "org.rdmalab.ibverbs..",
                        "org.rdmalab.lab..", "org.rdmalab.control..", "org.rdmalab.app..", "org.rdmalab.cli..",
                        "javafx..", "jnr..", "com.kenai..", "org.controlsfx..", "picocli..")
                .check(classes);
        noClasses().that().resideInAnyPackage("org.rdmalab.verbs..", "org.rdmalab.wire..", "org.rdmalab.capture..",
                        "org.rdmalab.softroce..", "org.rdmalab.ibverbs..", "org.rdmalab.lab..", "org.rdmalab.control..")
                .should().dependOnClassesThat().resideInAPackage("org.rdmalab.ladder..")
                .check(classes);
    }

    @Test
    void doctorUsesOnlyTheCoreLayers() {
        noClasses().that().resideInAPackage("org.rdmalab.doctor..")
                .should().dependOnClassesThat().resideInAnyPackage("org.rdmalab.softroce..", "org.rdmalab.ibverbs..",
                        "org.rdmalab.app..", "org.rdmalab.cli..", "org.rdmalab.lab..", "org.rdmalab.bench..",
                        "picocli..", "javafx..", "jnr..", "com.kenai..", "org.controlsfx..")
                .check(classes);
        noClasses().that().resideInAnyPackage("org.rdmalab.verbs..", "org.rdmalab.control..", "org.rdmalab.lab..",
                        "org.rdmalab.softroce..", "org.rdmalab.ibverbs..")
                .should().dependOnClassesThat().resideInAPackage("org.rdmalab.doctor..")
                .check(classes);
    }

    @Test
    void benchReachesDevicesOnlyThroughTheVerbsApi() {
        noClasses().that().resideInAPackage("org.rdmalab.bench..")
                .should().dependOnClassesThat().resideInAnyPackage("org.rdmalab.softroce..", "org.rdmalab.ibverbs..",
                        "org.rdmalab.app..", "org.rdmalab.cli..", "org.rdmalab.lab..", "org.rdmalab.doctor..",
                        "picocli..", "javafx..", "jnr..", "com.kenai..", "org.controlsfx..")
                .check(classes);
        noClasses().that().resideInAnyPackage("org.rdmalab.verbs..", "org.rdmalab.control..", "org.rdmalab.lab..",
                        "org.rdmalab.softroce..", "org.rdmalab.ibverbs..")
                .should().dependOnClassesThat().resideInAPackage("org.rdmalab.bench..")
                .check(classes);
    }

    @Test
    void theUdpBaselinesSitBelowLabAndBenchAndUseOnlyTheVerbsApi() {
        classes().that().resideInAPackage("org.rdmalab.baseline..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("org.rdmalab.baseline..", "org.rdmalab.verbs",
                        "java..", "org.HdrHistogram..")
                .check(classes);
        noClasses().that().resideInAnyPackage("org.rdmalab.verbs..", "org.rdmalab.control..", "org.rdmalab.text..",
                        "org.rdmalab.softroce..", "org.rdmalab.ibverbs..")
                .should().dependOnClassesThat().resideInAPackage("org.rdmalab.baseline..")
                .check(classes);
    }

    @Test
    void onlyTheWindowsLaunchersMakeBackgroundThreadsYieldSoTheCommandLinesFiguresKeepNormalPriority() {
        noClasses().that().resideOutsideOfPackage("org.rdmalab.app..")
                .should().callMethod(org.rdmalab.sched.BackgroundPriority.class, "yieldToWindow")
                .check(classes);
        classes().that().resideInAPackage("org.rdmalab.sched..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("org.rdmalab.sched..", "java..", "jnr..")
                .check(classes);
    }
}
