"""Parallel cyclic components: found once when a network is packed, evaluated together.

A recursive relation with an argument that the recursion never changes
grounds to one cyclic component per value of that argument, all of the same
shape: NoGo's and AtariGo's liberty code `(libcode ?stone ?bit ?value)` makes
12 components of 385 gates, one per (bit, value), whose AND gates read the
same stones (`(true (cell ?s ?p))`, `(true (cell ?d ?p))`) and whose ORs
differ only in the liberties they start from. The lanes evaluate such a
group as one worklist whose members carry one row per component
(`component_kernels.lane_group`): the bookkeeping of a member (queue, edges,
the AND of its outside inputs) is paid once for the group, not once per
component.

Components are parallel when a bijection between their members keeps the
kind of every gate, maps inside wires onto inside wires, and gives
corresponding AND gates the same outside inputs (ORs may differ). It is
found by colour refinement (each member's colour summarises its kind, an
AND's outside inputs, and the colours of its inside neighbours, refined
until every member of a component has a colour of its own) and then checked
wire by wire. A group is kept only when every outside input of every member
comes before its first component in the evaluation order, so that
evaluating the group where that component stands is exact. Found from the
network alone: nothing here knows a game.
"""

from __future__ import annotations

import numpy as np

from ..kernels.bits import mix64
from ..jit.decorators import allocating_kernel

_K_IN = np.uint64(0x9E3779B97F4A7C15)
_K_OUT = np.uint64(0xC2B2AE3D27D4EB4F)
_K_AND = np.uint64(0x165667B19E3779F9)
_K_OR = np.uint64(0x27D4EB2F165667C5)
#: Refinement rounds, at most (the grids of Go-like games separate in two or three).
MAX_ROUNDS = 16


@allocating_kernel
def _colours(kind, scc, scc_lo, scc_hi, int_ptr, int_node, out_ptr, out_node, ext_ptr, ext_node, ext_end):
    """Each member's colour after refinement, and per component whether all its
    colours are distinct (uint8)."""
    n = len(kind)
    colour = np.zeros(n, dtype=np.uint64)
    for s in range(len(scc_lo)):
        for g in range(scc_lo[s], scc_hi[s]):
            if kind[g] == 1:
                h = _K_AND
                for e in range(ext_ptr[g], ext_ptr[g + 1]):
                    negated = np.uint64(1) if e >= ext_end[g] else np.uint64(0)
                    h += mix64((np.uint64(ext_node[e]) << np.uint64(1)) | negated)
                colour[g] = mix64(h)
            else:
                colour[g] = _K_OR
    distinct = np.zeros(len(scc_lo), dtype=np.uint8)
    nxt = colour.copy()
    for _ in range(MAX_ROUNDS):
        for s in range(len(scc_lo)):
            if distinct[s]:
                continue
            for g in range(scc_lo[s], scc_hi[s]):
                h = colour[g]
                for e in range(int_ptr[g], int_ptr[g + 1]):
                    h += mix64(colour[int_node[e]] ^ _K_IN)
                for e in range(out_ptr[g], out_ptr[g + 1]):
                    h += mix64(colour[out_node[e]] ^ _K_OUT)
                nxt[g] = mix64(h)
        all_distinct = True
        for s in range(len(scc_lo)):
            if distinct[s]:
                continue
            for g in range(scc_lo[s], scc_hi[s]):
                colour[g] = nxt[g]
            ordered = np.sort(colour[scc_lo[s]: scc_hi[s]])
            unique = True
            for i in range(1, len(ordered)):
                if ordered[i] == ordered[i - 1]:
                    unique = False
                    break
            if unique:
                distinct[s] = 1
            else:
                all_distinct = False
        if all_distinct:
            break
    return colour, distinct


@allocating_kernel
def _same_shape(kind, colour, lead, other, scc_lo, scc_hi, int_ptr, int_node, ext_ptr, ext_node, ext_end,
                position):
    """Whether component `other` maps onto component `lead` member by member
    (by colour); fills position[g] = the index in `lead` of other's member g."""
    a = scc_lo[lead]
    size = scc_hi[lead] - a
    if scc_hi[other] - scc_lo[other] != size:
        return False
    order = np.argsort(colour[a: a + size])
    sorted_colours = colour[a: a + size][order]
    for g in range(scc_lo[other], scc_hi[other]):
        i = np.searchsorted(sorted_colours, colour[g])
        if i >= size or sorted_colours[i] != colour[g]:
            return False
        position[g] = order[i]
    for g in range(scc_lo[other], scc_hi[other]):
        twin = a + position[g]
        if kind[g] != kind[twin]:
            return False
        # the same inside wires, once mapped
        if int_ptr[g + 1] - int_ptr[g] != int_ptr[twin + 1] - int_ptr[twin]:
            return False
        mine = np.sort(np.array([position[int_node[e]] for e in range(int_ptr[g], int_ptr[g + 1])]))
        theirs = np.sort(np.array([int_node[e] - a for e in range(int_ptr[twin], int_ptr[twin + 1])]))
        for i in range(len(mine)):
            if mine[i] != theirs[i]:
                return False
        # an AND reads the same outside inputs
        if kind[g] == 1:
            if ext_ptr[g + 1] - ext_ptr[g] != ext_ptr[twin + 1] - ext_ptr[twin]:
                return False
            if ext_end[g] - ext_ptr[g] != ext_end[twin] - ext_ptr[twin]:
                return False
            for i in range(ext_ptr[g + 1] - ext_ptr[g]):
                if ext_node[ext_ptr[g] + i] != ext_node[ext_ptr[twin] + i]:
                    return False
    return True


@allocating_kernel
def find_groups(kind, scc, scc_lo, scc_hi, int_ptr, int_node, out_ptr, out_node, ext_ptr, ext_node, ext_end):
    """Groups of parallel components (see the module docstring).

    Returns (scc_group, group_lead, group_size, group_ptr, group_nodes):
    scc_group[s] is the group of component s or -1; a group's components are
    evaluated when its lead (the first in the evaluation order) is reached;
    group_nodes[group_ptr[k] + j * group_size[k] + c] is the node of member j
    (the lead's j-th) in the group's c-th component (the lead is c = 0).
    """
    n_scc = len(scc_lo)
    colour, distinct = _colours(kind, scc, scc_lo, scc_hi, int_ptr, int_node, out_ptr, out_node,
                                ext_ptr, ext_node, ext_end)
    signature = np.zeros(n_scc, dtype=np.uint64)
    for s in range(n_scc):
        h = np.uint64(scc_hi[s] - scc_lo[s])
        for g in range(scc_lo[s], scc_hi[s]):
            h += mix64(colour[g])
        signature[s] = mix64(h)
    scc_group = np.full(n_scc, -1, dtype=np.int32)
    # position[g]: the lead's member that member g of another component maps to
    # (each comparison writes only its own component's members)
    position = np.zeros(len(kind), dtype=np.int64)
    leads = []
    members = []
    by_signature = np.argsort(signature)
    i = 0
    while i < n_scc:
        j = i
        while j < n_scc and signature[by_signature[j]] == signature[by_signature[i]]:
            j += 1
        # components with this signature, in evaluation order
        found = by_signature[i:j]
        candidates = found[np.argsort(scc_lo[found])]
        i = j
        if len(candidates) < 2 or not distinct[candidates[0]]:
            continue
        lead = candidates[0]
        first = scc_lo[lead]
        group = [lead]
        for other in candidates[1:]:
            if distinct[other] and _same_shape(kind, colour, lead, other, scc_lo, scc_hi, int_ptr, int_node,
                                               ext_ptr, ext_node, ext_end, position):
                group.append(other)
        if len(group) < 2:
            continue
        # exact only if every outside input is computed before the group's place
        early = True
        for s in group:
            for g in range(scc_lo[s], scc_hi[s]):
                for e in range(ext_ptr[g], ext_ptr[g + 1]):
                    if ext_node[e] >= first:
                        early = False
        if early:
            leads.append(lead)
            members.append(group)
    n_groups = len(leads)
    group_lead = np.zeros(n_groups, dtype=np.int32)
    group_size = np.zeros(n_groups, dtype=np.int32)
    group_ptr = np.zeros(n_groups + 1, dtype=np.int32)
    for k in range(n_groups):
        group_lead[k] = leads[k]
        group_size[k] = len(members[k])
        group_ptr[k + 1] = group_ptr[k] + len(members[k]) * (scc_hi[leads[k]] - scc_lo[leads[k]])
    group_nodes = np.zeros(group_ptr[n_groups], dtype=np.int32)
    for k in range(n_groups):
        lead = leads[k]
        a = scc_lo[lead]
        size = group_size[k]
        for c in range(size):
            s = members[k][c]
            scc_group[s] = k
            for g in range(scc_lo[s], scc_hi[s]):
                j = g - a if c == 0 else position[g]
                group_nodes[group_ptr[k] + j * size + c] = g
    return scc_group, group_lead, group_size, group_ptr, group_nodes
