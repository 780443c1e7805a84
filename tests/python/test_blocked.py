"""Blocked smoothed aggregation from Python (issue 23): block_size,
near_null_space (with add_translations) and coordinates, on 2D plane-strain
elasticity assembled in conftest; the same keys as the JSON configuration."""

import numpy as np
import pytest
import scipy.sparse as sp

import strata
from conftest import elasticity2d, poisson2d, relative_residual, rhs, rigid_body_modes2d

SA = {"preconditioner": {"amg": {"coarsening": "smoothed_aggregation"}}}


@pytest.fixture(scope="module")
def plate():
    return elasticity2d(12)


def iterations(A, b, **kwargs):
    x, info = strata.solve(A, b, tol=1e-8, **kwargs)
    assert info["converged"], info
    assert relative_residual(A, b, x) <= 1e-8
    return info


def test_every_way_of_giving_the_modes_makes_the_same_solve(plate):
    A, xy = plate
    b = rhs(A.shape[0])
    B = rigid_body_modes2d(xy)
    by_modes = iterations(A, b, coarsening="sa", block_size=2, near_null_space=B)
    by_coordinates = iterations(A, b, coarsening="sa", block_size=2, coordinates=xy)
    flat = iterations(A, b, coarsening="sa", block_size=2, coordinates=xy.reshape(-1))
    rotation = iterations(A, b, coarsening="sa", block_size=2, near_null_space=B[:, 2:],
                          add_translations=True)
    by_config = iterations(A, b, config={"preconditioner": {"amg": {
        "coarsening": "sa", "smoothed_aggregation": {"block_size": 2}}}}, coordinates=xy)
    # A BSR matrix gives its block size itself.
    by_bsr = iterations(A.tobsr(blocksize=(2, 2)), b, config=SA, coordinates=xy)
    counts = {info["iterations"] for info in
              (by_modes, by_coordinates, flat, rotation, by_config, by_bsr)}
    assert len(counts) == 1, counts
    assert by_modes["operator"] == "BSR 2x2" and by_modes["near_null_vectors"] == 3
    # The translations alone (the coarsening's default) lack the rotation.
    translations = iterations(A, b, coarsening="sa", block_size=2)
    assert translations["near_null_vectors"] == 0
    assert translations["iterations"] > by_modes["iterations"]


def test_the_summary_shows_the_blocks_of_each_level(plate):
    A, xy = plate
    M = strata.AMG(A, coarsening="sa", block_size=2, coordinates=xy)
    assert M.block_size == 2
    levels = M.summary()["levels"]
    assert len(levels) >= 2
    assert levels[0]["kind"] == "BSR 2x2" and levels[0]["block_size"] == (2, 2)
    # Three modes per aggregate: 3x3 blocks below the fine level.
    for level in levels[1:]:
        assert level["kind"] == "BSR 3x3" and level["block_size"] == (3, 3)
    assert "BSR 3x3" in str(M)
    assert M.config["preconditioner"]["amg"]["coarsening"] == "smoothed_aggregation"
    assert M.config["preconditioner"]["amg"]["smoothed_aggregation"]["block_size"] == 2
    # A scalar hierarchy says CSR, 1 x 1.
    scalar = strata.AMG(poisson2d(10)).summary()["levels"][0]
    assert scalar["kind"] == "CSR" and scalar["block_size"] == (1, 1)


def test_resetup_of_a_blocked_hierarchy_uses_the_new_values(plate):
    A, xy = plate
    M = strata.AMG(A, coarsening="sa", block_size=2, coordinates=xy)
    b = rhs(A.shape[0], 3)
    x1, info1 = M.solve(b)
    assert M.resetup((2.0 * A).tocsr()) == "values"
    x2, info2 = M.solve(b)
    assert info1["converged"] and info2["converged"]
    np.testing.assert_allclose(x2, x1 / 2, rtol=1e-6, atol=1e-12 * np.abs(x1).max())


def test_rotations_alone_are_noticed(plate):
    A, xy = plate
    B = rigid_body_modes2d(xy)
    with pytest.warns(strata.SettingWarning, match="does not span the constant translation of "
                                                   "unknown 0.*add_translations=True"):
        strata.AMG(A, coarsening="sa", block_size=2, near_null_space=B[:, 2:])


def test_blocked_input_errors(plate):
    A, xy = plate
    n = A.shape[0]
    with pytest.raises(ValueError, match=r"coordinates \(flattened\) has 200 entries; expected "
                                         rf"{n} \(A.shape\[0\] / block_size nodes, 2 "
                                         r"coordinates each\)"):
        strata.AMG(A, coarsening="sa", block_size=2, coordinates=xy[:100])
    with pytest.raises(strata.InvalidArgumentError, match="block size is 1; expected "
                                                          "block_size=2 or 3"):
        strata.AMG(A, coarsening="sa", coordinates=xy)
    with pytest.raises(strata.InvalidArgumentError, match="block_size 5 does not divide"):
        strata.AMG(A, coarsening="sa", block_size=5)
    with pytest.raises(strata.InvalidArgumentError, match="both give the near-null space"):
        strata.AMG(A, coarsening="sa", block_size=2, coordinates=xy,
                   near_null_space=rigid_body_modes2d(xy))
    with pytest.raises(strata.InvalidArgumentError, match="add_translations=True.*None"):
        strata.AMG(A, coarsening="sa", block_size=2, add_translations=True)
    # The translations put before modes that hold them: rank-deficient.
    with pytest.raises(strata.InvalidArgumentError, match=r"near_null_space\["):
        strata.AMG(A, coarsening="sa", block_size=2, near_null_space=rigid_body_modes2d(xy),
                   add_translations=True)
    with pytest.raises(ValueError, match="block_size is 0; expected an integer >= 1"):
        strata.AMG(A, block_size=0)
    with pytest.raises(ValueError, match="block_size=3 contradicts config"):
        strata.solve(A, rhs(n), block_size=3, config={"preconditioner": {"amg": {
            "smoothed_aggregation": {"block_size": 2}}}})
    # The block size alone, under classical coarsening, changes nothing: said.
    with pytest.warns(strata.SettingWarning, match="smoothed_aggregation coarsening settings"):
        strata.AMG(sp.csr_matrix(poisson2d(6)), block_size=2)
