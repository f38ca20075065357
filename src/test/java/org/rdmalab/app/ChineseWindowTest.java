package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.BooleanSupplier;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.buffer.HexBufferView;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.lab.CompletionRow;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/** The window built with {@code gui --lang zh_CN}: a student runs the seed flow in Chinese (TestFX, headless). */
@ExtendWith(WindowRobot.class)
class ChineseWindowTest {

    private MainWindow window;

    @Start
    void start(Stage stage) throws Exception {
        UiText.use(UiText.CHINESE);
        window = MainWindow.create(Backends.installed(), DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()));
        stage.setScene(window.scene());
        stage.show();
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(window::close);
        UiText.use(UiText.ENGLISH);
    }

    private static void waitFor(String what, BooleanSupplier condition) {
        FxWait.waitFor(what, 30, condition);
    }

    private SideViewModel side(String name) {
        return window.lab().sides().stream().filter(side -> side.name().equals(name)).findFirst().orElseThrow();
    }

    /** The summary line under step {@code index} of a side's step list. */
    private static String summary(FxRobot robot, String list, int index) {
        robot.interact(() -> robot.lookup(list).queryListView().scrollTo(index));
        // The list lays its cells out in a later pulse: wait for the one scrolled to, looking on the
        // JavaFX thread, where the cells change.
        FxWait.waitForOnFx("step " + index + "'s cell", 30, () -> robot.lookup(list + " .list-cell")
                .match(node -> ((ListCell<?>) node).getIndex() == index).tryQuery().isPresent());
        return FxWait.onFx(() -> {
            ListCell<?> cell = robot.lookup(list + " .list-cell").match(node -> ((ListCell<?>) node).getIndex() == index)
                    .queryAs(ListCell.class);
            return robot.from(cell).lookup(".step-summary").queryAs(Label.class).getText();
        });
    }

    @Test
    void theSeedFlowRunsToHelloWorldWithChineseLabelsAndTheVerbsNamesAsVerbsHSpellsThem(FxRobot robot) {
        waitFor("the devices", () -> !window.lab().setup().gids().isEmpty() && !window.lab().sides().isEmpty());
        List<String> tabs = robot.lookup(".inspector > .tab-header-area > .headers-region > .tab .tab-label").queryAll().stream()
                .map(node -> ((Label) node).getText()).toList();
        assertEquals(List.of("步骤", "收发", "连接数据", "资源", "Verbs", "线路", "诊断", "性能测试", "课程"), tabs);
        assertEquals("下一步", robot.lookup("#serverRunNext").queryButton().getText());
        ListCell<?> first = robot.lookup("#serverSteps .list-cell").match(node -> ((ListCell<?>) node).getIndex() == 0)
                .queryAs(ListCell.class);
        assertTrue(robot.from(first).lookup(".step-title").queryAs(Label.class).getText().equals("1. 打开设备"));

        robot.clickOn("#useRecommendedGid");
        waitFor("the recommended GID", () -> window.lab().setup().gidIndexProperty().get().equals("3")
                && !side("server").busyProperty().get());
        Button runAll = robot.lookup("#runAllButton").queryButton();
        assertEquals("两端都运行到结束", runAll.getText());
        robot.clickOn(runAll);
        waitFor("the end", () -> side("server").nextIndexProperty().get() == side("server").steps().size()
                && !side("server").busyProperty().get() && !side("client").busyProperty().get());

        javafx.scene.control.TableView<?> completions = robot.lookup("#completionTable").queryTableView();
        assertEquals("1 个完成", robot.from(completions.getParent()).lookup("#countLabel").queryAs(Label.class).getText());
        CompletionRow row = (CompletionRow) completions.getItems().get(0);
        assertEquals("IBV_WC_SUCCESS", row.completion().status().cName(), "statuses keep verbs.h's names");
        HexBufferView server = robot.lookup("#serverBuffer").queryAs(HexBufferView.class);
        assertTrue(server.getCaption().startsWith("服务端缓冲区 · 127.0.0.1 · 客户端的远端缓冲区 · 11 字节"),
                server.getCaption());
        // What the steps gave is said in Chinese too; what the verbs name keeps its name.
        assertEquals("已打开 soft0", summary(robot, "#serverSteps", 0));
        assertEquals("PD 句柄 1", summary(robot, "#serverSteps", 2));
        assertTrue(side("client").steps().stream().anyMatch(step -> step.summaryProperty().get()
                .equals("缓冲区现在是 \"HelloWorld\"")), "the client's write-buffer step");
        String status = robot.lookup("#statusLabel").queryAs(Label.class).getText();
        // The status line says the latest thing that happened, not the GID change that started the run.
        assertTrue(status.startsWith("流程已运行到结束（"), status);
    }

    @Test
    void theGrhLessonIsToldInChineseAtTheFieldAndItsFixButtonSpeaksChinese(FxRobot robot) {
        SeedRuns.runUntilRtrFails(robot, window);
        robot.clickOn("#showCauseButton");
        FxWait.waitForOnFx("the field", 30, () -> robot.lookup("#message-gid_idx").tryQuery().isPresent());
        Label message = robot.lookup("#message-gid_idx").queryAs(Label.class);
        assertTrue(message.getText().startsWith("EINVAL (22, Invalid argument): gid_idx -1 不发送 GRH，但 RoCE 的每个数据包都走 "
                + "UDP/IP"), message.getText());
        Button fix = robot.lookup("#fixButton").queryButton();
        waitFor("the fix", fix::isVisible);
        assertEquals("使用 GID 3", fix.getText(), "the label up to its parenthesis");
        assertEquals("没有 GID（gid_idx -1：不带 GRH；RoCE 需要 GRH，RTR 会失败）",
                side("client").steps().stream().filter(row -> row.step().id().equals("query-port")).findFirst()
                        .orElseThrow().summaryProperty().get().replaceFirst("^端口 1 ACTIVE，", ""));
    }

    @Test
    void theDoctorTabSaysWhatItsChecksFoundAndTheirFixesInChinese(FxRobot robot) {
        // The Doctor tab's content joins the scene when the tab is first shown: read it from the tab.
        javafx.scene.Node doctor = org.rdmalab.app.LazyTabContent.contentOf(robot.lookup(".inspector")
                .queryAs(javafx.scene.control.TabPane.class).getTabs().stream()
                .filter(tab -> "doctorTab".equals(tab.getId())).findFirst().orElseThrow());
        Label summary = robot.from(doctor).lookup("#doctorSummary").queryAs(Label.class);
        waitFor("the devices", () -> !window.lab().setup().gids().isEmpty());
        robot.clickOn(robot.lookup(".inspector .tab .tab-label").match(node -> node instanceof Label label
                && "诊断".equals(label.getText())).queryAs(javafx.scene.Node.class));
        waitFor("the report", () -> summary.getText().matches(UiText.pattern("doctor.summary") + ".*"));
        List<String> found = texts(robot, ".doctor-found");
        List<String> fixes = texts(robot, ".doctor-fix");
        assertTrue(found.size() >= 10 && !fixes.isEmpty(), found + " / " + fixes);
        for (String line : found) {
            assertTrue(chinese(line), "a finding in English: " + line);
        }
        String prefix = UiText.format("doctor.fix", "");
        for (String line : fixes) {
            assertTrue(line.startsWith(prefix) && chinese(line.substring(prefix.length())), "a fix in English: " + line);
        }
        assertTrue(found.stream().anyMatch(line -> line.startsWith("gid_idx 是 -1")), found::toString);
        List<String> names = texts(robot, ".doctor-name");
        assertTrue(names.stream().anyMatch(name -> name.startsWith("gid_idx · ")), "check names keep their names: "
                + names);
    }

    @Test
    void everyTextTheChineseWindowShowsIsDrawnInAFontThatHasItsGlyphs(FxRobot robot) {
        boolean cjk = FxWait.onFx(() -> Glyphs.missing(javafx.scene.text.Font.font("System", 13), "步骤").isEmpty());
        if (!cjk) {
            org.rdmalab.testing.Tools.unavailable("no font JavaFX can draw Chinese with is installed (apt-get install "
                    + "fonts-wqy-microhei; JavaFX on Linux passes over CFF fonts such as Noto Sans CJK)");
        }
        waitFor("the devices", () -> !window.lab().setup().gids().isEmpty() && !window.lab().sides().isEmpty());
        javafx.scene.control.TabPane inspector = robot.lookup(".inspector").queryAs(javafx.scene.control.TabPane.class);
        List<String> wrong = new java.util.ArrayList<>();
        int han = 0;
        for (javafx.scene.control.Tab tab : inspector.getTabs()) {
            robot.interact(() -> inspector.getSelectionModel().select(tab));
            han += FxWait.onFx(() -> {
                int seen = 0;
                for (javafx.scene.text.Text text : Glyphs.shown(window.scene().getRoot())) {
                    List<String> missing = Glyphs.missing(text.getFont(), text.getText());
                    if (!missing.isEmpty()) {
                        wrong.add(tab.getText() + ": \"" + text.getText() + "\" lacks " + missing + " in "
                                + text.getFont().getName());
                    }
                    seen += (int) text.getText().codePoints().filter(c -> Character.UnicodeScript.of(c)
                            == Character.UnicodeScript.HAN).count();
                }
                return seen;
            });
        }
        assertTrue(wrong.isEmpty(), () -> "drawn as empty boxes: " + String.join("; ", wrong.stream().distinct().toList()));
        assertTrue(han > 200, "the check saw the window's Chinese: " + han + " characters");
    }

    private static List<String> texts(FxRobot robot, String query) {
        return robot.lookup(query).queryAll().stream().map(node -> ((Label) node).getText()).toList();
    }

    private static boolean chinese(String text) {
        return text.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN);
    }
}
