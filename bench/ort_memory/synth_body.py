#!/usr/bin/python3
"""Write the synthetic models that measure what control-flow bodies cost in onnxruntime (no
fitting on real models): every weight is a (1, 256, 64) float tensor (64 KiB) stored inside the
.onnx, as in silero_vad.
  sum_N         a chain of N Sum nodes reading two initializers each, in the main graph;
  ifsum_N       an If whose two branches each hold such a chain of N (body depth 1);
  loopsum_N     a Loop (2 trips) whose body holds a chain of N (depth 1);
  difD_N        Ifs nested D deep; each of the 2^D innermost branches holds a chain of N;
  lstm_N        a chain of N LSTMs (hidden 64) in the main graph (W, R pre-packed by onnxruntime);
  iflstm_N      an If whose two branches each hold a chain of N LSTMs;
  ifs_N         N Ifs, each branch one Identity/Neg node: the per-subgraph session cost;
  ifsK_N        the same with K Neg nodes per branch: the per-node cost inside bodies;
  constsum_N    sum_N with every weight a Constant node instead of an initializer (session 30);
  ifconst_N     ifsum_N with every weight a Constant node inside the branches (silero_vad v5
                keeps its weights so);
  tinyconst_N   a chain of N Adds each reading a one-float Constant node, in the main graph;
  iftinyconst_N an If whose two branches each hold such a chain: the per-Constant cost (silero
                v5 has 341 Constant nodes, most of a few bytes);
  tinyfold_N, iftinyfold_N  the same with each Constant negated first (a node onnxruntime's
                constant folding computes at creation: the per-folded-node cost, session 31);
  outer_N, foldouter_N  an If whose branches read N main-graph initializers directly, or through
                an Unsqueeze that constant folding turns into a copy in each branch;
  nest_N, nestfold_N  the same two levels down: Constant nodes of an If's branches read by an
                inner If's branches (silero_vad v5's LSTM weights).
The If condition comes from an int64 input 'ci' (1), so that no optimizer folds it.
Usage: /usr/bin/python3 bench/ort_memory/synth_body.py OUTDIR (writes NAME.onnx, NAME.inputs.json)"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HID = 64
SHAPE = [1, 4 * HID, HID]
rng = np.random.default_rng(0)


def vi(name, shape=SHAPE, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def weight(name, shape=SHAPE):
    return numpy_helper.from_array((rng.standard_normal(shape) * 0.05).astype(np.float32), name)


def save(nodes, inits, inputs, outputs, path, feeds):
    g = helper.make_graph(nodes, os.path.basename(path)[:-5], inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, path)
    json.dump({'bind': {}, 'inputs': feeds}, open(path[:-len('.onnx')] + '.inputs.json', 'w'))


def sum_chain(tag, x, n):
    """n Sum nodes, each reading the previous value and two new initializers."""
    nodes, inits, prev = [], [], x
    for i in range(n):
        w, r, o = '%sW%d' % (tag, i), '%sR%d' % (tag, i), '%ss%d' % (tag, i)
        inits += [weight(w), weight(r)]
        nodes.append(helper.make_node('Sum', [prev, w, r], [o]))
        prev = o
    return nodes, inits, prev


def const_chain(tag, x, n):
    """sum_chain with each weight a Constant node (its tensor an attribute of the node)."""
    nodes, prev = [], x
    for i in range(n):
        w, r, o = '%sW%d' % (tag, i), '%sR%d' % (tag, i), '%ss%d' % (tag, i)
        for name in (w, r):
            nodes.append(helper.make_node('Constant', [], [name], value=weight(name)))
        nodes.append(helper.make_node('Sum', [prev, w, r], [o]))
        prev = o
    return nodes, [], prev


def tiny_const_chain(tag, x, n):
    """n Adds, each reading the previous value and a new one-float Constant node."""
    nodes, prev = [], x
    for i in range(n):
        c, o = '%sc%d' % (tag, i), '%sa%d' % (tag, i)
        nodes.append(helper.make_node('Constant', [], [c], value=numpy_helper.from_array(
            np.array([0.5 + i], np.float32), c)))
        nodes.append(helper.make_node('Add', [prev, c], [o]))
        prev = o
    return nodes, [], prev


def tiny_fold_chain(tag, x, n):
    """tiny_const_chain with each Constant negated first: a Neg of a constant, which
    onnxruntime's constant folding computes at session creation (session 31)."""
    nodes, prev = [], x
    for i in range(n):
        c, f, o = '%sc%d' % (tag, i), '%sf%d' % (tag, i), '%sa%d' % (tag, i)
        nodes.append(helper.make_node('Constant', [], [c], value=numpy_helper.from_array(
            np.array([0.5 + i], np.float32), c)))
        nodes.append(helper.make_node('Neg', [c], [f]))
        nodes.append(helper.make_node('Add', [prev, f], [o]))
        prev = o
    return nodes, [], prev


def lstm_chain(tag, x, n):
    nodes, inits, prev = [], [], x
    for i in range(n):
        w, r, b, o = ('%s%s%d' % (tag, k, i) for k in 'WRBh')
        inits += [weight(w), weight(r),
                  numpy_helper.from_array(np.zeros((1, 8 * HID), np.float32), b)]
        nodes.append(helper.make_node('LSTM', [prev, w, r, b], ['', o], hidden_size=HID))
        prev = o
    return nodes, inits, prev


COND = [helper.make_node('Cast', ['ci'], ['c'], to=TensorProto.BOOL)]
CI = vi('ci', [], TensorProto.INT64)
FEED_CI = {'ci': {'dtype': 'int64', 'shape': [], 'values': [1]}}


CHAINS = {'sum': sum_chain, 'lstm': lstm_chain, 'const': const_chain, 'tiny': tiny_const_chain,
          'tinyfold': tiny_fold_chain}


def main_chain(out, kind, n, name=None):
    chain = CHAINS[kind]
    shape = [1, 1, HID] if kind == 'lstm' else SHAPE
    nodes, inits, y = chain('', 'x', n)
    nodes.append(helper.make_node('Identity', [y], ['y']))
    save(nodes, inits, [vi('x', shape)], [vi('y', shape)],
         os.path.join(out, name or '%s_%d.onnx' % (kind, n)),
         {'x': {'dtype': 'float32', 'shape': shape}})


def nested_if(out, name, depth, n, kind='sum'):
    chain = CHAINS[kind]
    shape = [1, 1, HID] if kind == 'lstm' else SHAPE

    def branch(tag, d):
        if d == depth:
            nodes, inits, y = chain(tag, 'x', n)
            nodes.append(helper.make_node('Identity', [y], [tag + 'y']))
            return helper.make_graph(nodes, tag, [], [vi(tag + 'y', shape)], inits)
        node = helper.make_node('If', ['c'], [tag + 'y'], then_branch=branch(tag + 't', d + 1),
                                else_branch=branch(tag + 'e', d + 1))
        return helper.make_graph([node], tag, [], [vi(tag + 'y', shape)])
    node = helper.make_node('If', ['c'], ['y'], then_branch=branch('t', 1),
                            else_branch=branch('e', 1))
    save(COND + [node], [], [vi('x', shape), CI], [vi('y', shape)], os.path.join(out, name),
         dict({'x': {'dtype': 'float32', 'shape': shape}}, **FEED_CI))


def loop_sum(out, n):
    nodes, inits, y = sum_chain('b', 'xin', n)
    nodes += [helper.make_node('Identity', ['cond_in'], ['cond_out']),
              helper.make_node('Identity', [y], ['xout'])]
    body = helper.make_graph(nodes, 'body', [vi('it', [], TensorProto.INT64),
                                             vi('cond_in', [], TensorProto.BOOL), vi('xin')],
                             [vi('cond_out', [], TensorProto.BOOL), vi('xout')], inits)
    top = COND + [helper.make_node('Add', ['ci', 'ci'], ['trips']),
                  helper.make_node('Loop', ['trips', 'c', 'x'], ['y'], body=body)]
    save(top, [], [vi('x'), CI], [vi('y')], os.path.join(out, 'loopsum_%d.onnx' % n),
         dict({'x': {'dtype': 'float32', 'shape': SHAPE}}, **FEED_CI))


def if_chain(out, n, k):
    nodes, prev = list(COND), 'x'
    for i in range(n):
        o = 'y' if i == n - 1 else 'v%d' % i
        branches = []
        for b, op in (('t', 'Identity' if k == 1 else 'Neg'), ('e', 'Neg')):
            bn, p = [], prev
            for j in range(k):
                bn.append(helper.make_node(op, [p], ['%s%d_%d' % (b, i, j)]))
                p = '%s%d_%d' % (b, i, j)
            branches.append(helper.make_graph(bn, '%s%d' % (b, i), [], [vi(p, [1, 16])]))
        nodes.append(helper.make_node('If', ['c'], [o], then_branch=branches[0],
                                      else_branch=branches[1]))
        prev = o
    name = 'ifs_%d.onnx' % n if k == 1 else 'ifs%d_%d.onnx' % (k, n)
    save(nodes, [], [vi('x', [1, 16]), CI], [vi('y', [1, 16])], os.path.join(out, name),
         dict({'x': {'dtype': 'float32', 'shape': [1, 16]}}, **FEED_CI))


def outer_weights(out, name, n, fold, nested):
    """n weights read inside If branches from an enclosing scope: the main graph's initializers
    read one body deep (nested False), or Constant nodes of the outer If's branches read by an
    inner If's branches (nested True); through an Unsqueeze (fold: onnxruntime's constant folding
    makes each branch its own copy) or directly (session 31)."""
    shape = [1] + SHAPE if fold else SHAPE

    def reader(tag):
        nodes, prev, binit = [], 'x', []
        for i in range(n):
            src = 'W%d' % i
            if fold:
                u = '%su%d' % (tag, i)
                nodes.append(helper.make_node('Unsqueeze', [src, tag + 'ax'], [u]))
                src = u
            o = '%ss%d' % (tag, i)
            nodes.append(helper.make_node('Add', [prev, src], [o]))
            prev = o
        nodes.append(helper.make_node('Identity', [prev], [tag + 'out']))
        if fold:
            binit = [helper.make_tensor(tag + 'ax', TensorProto.INT64, [1], [0])]
        return helper.make_graph(nodes, tag, [], [vi(tag + 'out', shape)], binit)

    def holder(tag):
        nodes = [helper.make_node('Constant', [], ['W%d' % i], value=weight('W%d' % i))
                 for i in range(n)]
        nodes.append(helper.make_node('If', ['c'], [tag + 'out'], then_branch=reader(tag + 't'),
                                      else_branch=reader(tag + 'e')))
        return helper.make_graph(nodes, tag, [], [vi(tag + 'out', shape)])

    branch = holder if nested else reader
    inits = [] if nested else [weight('W%d' % i) for i in range(n)]
    node = helper.make_node('If', ['c'], ['y'], then_branch=branch('T'), else_branch=branch('E'))
    save(COND + [node], inits, [vi('x', shape), CI], [vi('y', shape)], os.path.join(out, name),
         dict({'x': {'dtype': 'float32', 'shape': shape}}, **FEED_CI))


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for n in (1, 33):
    main_chain(out, 'sum', n)
    main_chain(out, 'lstm', n)
for n in (1, 16):
    nested_if(out, 'ifsum_%d.onnx' % n, 1, n)
    nested_if(out, 'dif2_%d.onnx' % n, 2, n)
for n in (1, 8):
    nested_if(out, 'dif3_%d.onnx' % n, 3, n)
for n in (8, 16):
    nested_if(out, 'iflstm_%d.onnx' % n, 1, n, 'lstm')
for n in (1, 32):
    loop_sum(out, n)
for n in (1, 201):
    if_chain(out, n, 1)
if_chain(out, 201, 5)
for n in (1, 16):
    main_chain(out, 'const', n, 'constsum_%d.onnx' % n)
    nested_if(out, 'ifconst_%d.onnx' % n, 1, n, 'const')
for n in (1, 201):
    main_chain(out, 'tiny', n, 'tinyconst_%d.onnx' % n)
    nested_if(out, 'iftinyconst_%d.onnx' % n, 1, n, 'tiny')
for n in (1, 201):
    main_chain(out, 'tinyfold', n, 'tinyfold_%d.onnx' % n)
    nested_if(out, 'iftinyfold_%d.onnx' % n, 1, n, 'tinyfold')
for n in (1, 16):
    outer_weights(out, 'outer_%d.onnx' % n, n, False, False)
    outer_weights(out, 'foldouter_%d.onnx' % n, n, True, False)
    outer_weights(out, 'nest_%d.onnx' % n, n, False, True)
    outer_weights(out, 'nestfold_%d.onnx' % n, n, True, True)
print('synth_body: models in', out)
