package org.rdmalab.app.ladder;

import java.nio.file.Path;
import java.util.Optional;
import javafx.stage.FileChooser;
import javafx.stage.Window;
import org.rdmalab.app.common.UiText;

/**
 * Where Open capture… and Save capture… ask for a file: a {@link FileChooser} in the window
 * ({@link #dialogs()}), or in tests a stand-in that answers without a dialog.
 */
public interface CaptureFiles {

    /** The capture to open, or empty when the user cancelled. */
    Optional<Path> toOpen(Window owner);

    /** Where to save the session's capture, or empty when the user cancelled. */
    Optional<Path> toSave(Window owner);

    /** The desktop's file dialogs, for pcap and pcapng files. */
    static CaptureFiles dialogs() {
        return new CaptureFiles() {
            @Override
            public Optional<Path> toOpen(Window owner) {
                FileChooser chooser = chooser("ladder.openTitle");
                chooser.getExtensionFilters().add(new FileChooser.ExtensionFilter(UiText.text("ladder.allFiles"), "*"));
                return Optional.ofNullable(chooser.showOpenDialog(owner)).map(java.io.File::toPath);
            }

            @Override
            public Optional<Path> toSave(Window owner) {
                FileChooser chooser = chooser("ladder.saveTitle");
                chooser.setInitialFileName("rdma-lab.pcap");
                return Optional.ofNullable(chooser.showSaveDialog(owner)).map(java.io.File::toPath);
            }

            private FileChooser chooser(String title) {
                FileChooser chooser = new FileChooser();
                chooser.setTitle(UiText.text(title));
                chooser.getExtensionFilters().add(new FileChooser.ExtensionFilter(UiText.text("ladder.captureFiles"),
                        "*.pcap", "*.pcapng", "*.cap"));
                return chooser;
            }
        };
    }
}
