package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.verbs.spi.VerbsProvider;

/** The view model without a window: same-thread executors, a backend that fails. */
class MainViewModelTest {

    @Test
    void aFailingBackendIsReportedInTheStatusLine() {
        VerbsProvider broken = new VerbsProvider() {
            @Override
            public String name() {
                return "libibverbs";
            }

            @Override
            public List<Device> devices(DeviceOptions options) throws VerbsException {
                throw new VerbsException("ibv_get_device_list", Errno.ENOSYS, "no RDMA in this kernel");
            }
        };
        MainViewModel model = new MainViewModel(new Backends(List.of(broken)), Runnable::run, Runnable::run);
        assertEquals(List.of(), model.devices());
        assertEquals("0 device(s); libibverbs: no RDMA in this kernel", model.statusProperty().get());
    }

    @Test
    void selectingAStepShowsItsCCode() {
        MainViewModel model = new MainViewModel(Backends.installed(), Runnable::run, Runnable::run);
        model.selectedStepProperty().set(model.steps().get(2));
        assertEquals("Allocate PD", model.steps().get(2).title());
        assertTrue(model.stepDetailProperty().get().contains("res->pd = ibv_alloc_pd(res->ctx);"));
    }
}
