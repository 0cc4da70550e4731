"""The training workload of the profile-guided native build (``gpgpusim/pgo/train.py``)."""
from __future__ import annotations


def test_training_run_simulates_its_kernels_correctly():
    """The training workload (pure Python here, on small GPUs): every kernel's result is
    checked against numpy inside ``train``, which raises on a difference."""
    from gpgpusim.pgo import train as native_train

    native_train.train("SM7_QV100", 2, 32, 2048)
    native_train.train("SM86_RTX3070", 1, 16, 1024)


def test_build_goes_on_without_a_profile_when_the_training_pass_fails(tmp_path, capsys):
    """``native._train`` never stops the build: a step that fails (here the instrumented build
    has nothing to install) gives no profile flags, a manifest label saying why, and one line."""
    from gpgpusim import native

    flags, label = native._train([], [], str(tmp_path), str(tmp_path), {})
    assert flags == []
    assert label.startswith("none (") and "Error" in label
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gpgpusim: no profile for the native build (")
