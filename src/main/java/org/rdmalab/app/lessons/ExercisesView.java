package org.rdmalab.app.lessons;

import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.layout.VBox;
import org.rdmalab.app.common.UiText;
import org.rdmalab.lab.exercise.Exercise;

/**
 * Controller of {@code lessons/ExercisesView.fxml}: binds the list, the chosen exercise's words, the
 * checks (each marked open or met) and the hints to {@link ExercisesViewModel}; Start, Show a hint
 * and Open exercise… delegate to it.
 */
public final class ExercisesView {

    /** The style class of a check that is met, and of one still open. */
    public static final String MET = "check-met";
    public static final String OPEN = "check-open";

    private final ExercisesViewModel model;

    @FXML
    private ListView<Exercise> exerciseList;
    @FXML
    private Label exerciseTitle;
    @FXML
    private Label exerciseGoal;
    @FXML
    private Label exerciseTeaches;
    @FXML
    private Label exerciseProblem;
    @FXML
    private Label exerciseProgress;
    @FXML
    private VBox exerciseChecks;
    @FXML
    private VBox exerciseHints;
    @FXML
    private Button exerciseStart;
    @FXML
    private Button exerciseHint;
    @FXML
    private Button exerciseOpen;

    public ExercisesView(ExercisesViewModel model) {
        this.model = model;
    }

    @FXML
    private void initialize() {
        exerciseList.setItems(model.exercises());
        exerciseList.setCellFactory(list -> new ListCell<>() {
            @Override
            protected void updateItem(Exercise exercise, boolean empty) {
                super.updateItem(exercise, empty);
                // As wide as the list, never wider: a long title ends in an ellipsis, its tooltip says it all.
                setPrefWidth(0);
                setText(empty || exercise == null ? null : UiText.say(exercise.title()));
                setTooltip(empty || exercise == null ? null : new javafx.scene.control.Tooltip(
                        UiText.say(exercise.title()) + " (" + exercise.name() + ")"));
                getStyleClass().remove("exercise-started");
                if (!empty && exercise != null && exercise == model.startedProperty().get()) {
                    getStyleClass().add("exercise-started");
                }
            }
        });
        exerciseList.getSelectionModel().select(model.chosenProperty().get());
        // An exercise opened from a file is chosen by the model: the list follows.
        model.chosenProperty().addListener((observable, before, now) -> {
            if (now != null && exerciseList.getSelectionModel().getSelectedItem() != now) {
                exerciseList.getSelectionModel().select(now);
                exerciseList.scrollTo(now);
            }
        });
        exerciseList.getSelectionModel().selectedItemProperty().addListener((observable, before, now) -> {
            if (now != null) {
                model.chosenProperty().set(now);
            }
        });
        model.chosenProperty().addListener((observable, before, now) -> show(now));
        model.startedProperty().addListener((observable, before, now) -> {
            exerciseList.refresh();
            show(model.chosenProperty().get());
        });
        model.checks().addListener((ListChangeListener<ExercisesViewModel.CheckRow>) change -> showChecks());
        model.hints().addListener((ListChangeListener<String>) change -> showHints());
        exerciseProgress.textProperty().bind(model.progressProperty());
        model.doneProperty().addListener((observable, before, done) -> {
            exerciseProgress.getStyleClass().remove("exercise-done");
            if (done) {
                exerciseProgress.getStyleClass().add("exercise-done");
            }
        });
        exerciseProblem.textProperty().bind(model.problemProperty());
        exerciseProblem.visibleProperty().bind(model.problemProperty().isNotEmpty());
        exerciseProblem.managedProperty().bind(exerciseProblem.visibleProperty());
        show(model.chosenProperty().get());
        showChecks();
        showHints();
    }

    private void show(Exercise exercise) {
        if (exercise == null) {
            return;
        }
        boolean running = exercise == model.startedProperty().get();
        exerciseTitle.setText(UiText.say(exercise.title()));
        exerciseGoal.setText(UiText.say(exercise.goal()));
        exerciseTeaches.setText(UiText.say(exercise.teaches()));
        exerciseStart.setText(UiText.text(running ? "exercises.restart" : "exercises.start"));
        exerciseHint.disableProperty().unbind();
        exerciseHint.disableProperty().bind(model.moreHintsProperty().not().or(
                model.startedProperty().isNotEqualTo(exercise)));
        exerciseProgress.setVisible(running);
        exerciseHints.setVisible(running);
        exerciseHints.setManaged(running);
    }

    private void showChecks() {
        exerciseChecks.getChildren().clear();
        boolean running = model.chosenProperty().get() != null
                && model.chosenProperty().get() == model.startedProperty().get();
        int number = 1;
        for (ExercisesViewModel.CheckRow row : model.checks()) {
            Label label = new Label((row.met() ? "✓ " : "○ ") + number++ + ". " + row.text());
            label.setWrapText(true);
            label.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
            label.getStyleClass().addAll("exercise-check", row.met() && running ? MET : OPEN);
            exerciseChecks.getChildren().add(label);
        }
    }

    private void showHints() {
        exerciseHints.getChildren().clear();
        int number = 1;
        for (String hint : model.hints()) {
            Label label = new Label(UiText.format("exercises.hint", number++, hint));
            label.setWrapText(true);
            label.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
            label.getStyleClass().add("exercise-hint");
            exerciseHints.getChildren().add(label);
        }
    }

    @FXML
    private void onStart() {
        model.start();
    }

    @FXML
    private void onOpen() {
        model.chooseAndOpen(exerciseOpen.getScene() == null ? null : exerciseOpen.getScene().getWindow());
    }

    @FXML
    private void onHint() {
        model.revealHint();
    }
}
