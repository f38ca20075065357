package org.rdmalab.app.lessons;

import java.nio.file.Path;
import java.util.Optional;
import javafx.stage.FileChooser;
import javafx.stage.Window;
import org.rdmalab.app.common.UiText;

/**
 * Where Open exercise… asks for an exercise file: a {@link FileChooser} in the window
 * ({@link #dialogs()}), or in tests a stand-in that answers without a dialog.
 */
public interface ExerciseFiles {

    /** The exercise file to open, or empty when the user cancelled. */
    Optional<Path> toOpen(Window owner);

    /** The desktop's file dialog, for YAML exercise files. */
    static ExerciseFiles dialogs() {
        return owner -> {
            FileChooser chooser = new FileChooser();
            chooser.setTitle(UiText.text("exercises.openTitle"));
            chooser.getExtensionFilters().addAll(
                    new FileChooser.ExtensionFilter(UiText.text("exercises.files"), "*.yaml", "*.yml"),
                    new FileChooser.ExtensionFilter(UiText.text("ladder.allFiles"), "*"));
            return Optional.ofNullable(chooser.showOpenDialog(owner)).map(java.io.File::toPath);
        };
    }
}
