"""The sentences of the tutorials that say what PyTorch does and sit next to no block that shows
it, each listed with the check that runs it on torch (`pytorch_checks`), or the command that
checks it by hand, or why it says nothing PyTorch does. tests/teach/test_pytorch_claims.py
finds every such sentence and fails on one that is not listed here.

A quote is (page, a fragment of the sentence), the page relative to tutorials/.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytorch_checks as check


@dataclass(frozen=True)
class Claim:
    quotes: tuple[tuple[str, str], ...]
    check: Callable[[Any, Path], None] | None = None  # run on torch by the test
    command: str = ""  # what checks it by hand (it needs the network)
    not_a_claim: str = ""  # why the sentence says nothing PyTorch does


DIFF = "differences.md"
INDEX = "README.md"


def both(page: str, en: str, zh: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """The same sentence on the English page and on the Chinese one."""
    if page == DIFF:  # differences.md, differences.zh.md
        return (page, en), (page.replace(".md", ".zh.md"), zh)
    return (f"en/{page}", en), (f"zh/{page}", zh)


TESTS = "says how the tests keep the lessons true of PyTorch, not what PyTorch does"

CLAIMS: list[Claim] = [
    Claim(both(DIFF, "A loss's class labels may be a numpy array or a list",
               "损失函数的类别标签在 minigrad 里可以是 numpy 数组或列表"),
          check=check.a_loss_takes_a_list_of_labels_where_pytorch_refuses),
    Claim(both(DIFF, "`torch.norm_except_dim(v, 2, -1)` (the norm of the whole tensor) gets",
               "`torch.norm_except_dim(v, 2, -1)`（整个张量的范数）在 minigrad 里能算出切向量"),
          check=check.norm_except_dim_of_everything_fails_in_forward_mode),
    # -- the pages written this session: each sentence checked by the command named
    Claim((
        ('README.md', 'What each node saves, in bytes, step by step (`Trace.memory`'),
        ('README.md', '每个节点保存了什么、占多少字节，一步一步地看（`Trace.memory`、`explain(memory=True)`'),
    ), command="pytest tests/compare/test_trace_torch_memory.py (lesson 25's measurements on torch)"),
    Claim((
        ('differences.md', '| `Trace.memory`, `explain(memory=True)` | what each node ke'),
        ('differences.md', "**A dim in a node's saved values is counted from the front.*"),
        ('differences.md', "Every other `_saved_*` name, type and tensor is PyTorch's (t"),
        ('differences.md', '**An LSTM records its steps.** On the CPU, PyTorch runs `nn.'),
        ('differences.md', 'GRU and RNN layers, and the cells, record the same nodes as '),
        ('differences.md', '**When saved tensors are freed.** PyTorch frees what a node '),
        ('differences.md', "**What a node keeps.** Some of minigrad's ops keep more than"),
        ('differences.md', '**Forward mode (`minigrad.autograd.forward_ad`).** As in PyT'),
        ('differences.md', "`inference_mode` turns it off in PyTorch (an op's output get"),
        ('differences.md', 'An op without a JVP rule raises PyTorch\'s sentence ("Trying '),
        ('differences.md', 'A custom Function whose `jvp` returns `None` for a different'),
        ('differences.md', '**Function transforms run their passes one after another.** '),
        ('differences.md', 'What differs: minigrad has no batched backward or forward-mo'),
        ('differences.md', 'An f that prints prints again for each sample (and once for '),
        ('differences.md', "A transform's result has the same values and `requires_grad`"),
    ), command='pytest tests/core/test_saved_names_torch.py tests/teach/test_make_dot.py tests/func tests/core/test_forward_ad.py tests/compare/test_trace_torch_memory.py (each side by side with torch 2.13)'),
    Claim((
        ('differences.zh.md', '| `Trace.memory`、`explain(memory=True)` | 每个节点为反向传播保存了什么、占多少'),
        ('differences.zh.md', '** minigrad 上 `A.sum(-1).grad_fn._saved_dim` 是 `(1,)`；PyTorc'),
        ('differences.zh.md', '其余 `_saved_*` 的名字、类型和张量都与 PyTorch 相同 （按算子表逐个节点测试过）。'),
        ('differences.zh.md', '** 在 CPU 上，PyTorch 用 oneDNN 运行 float32 的 `nn.LSTM`，把整层记成一个节点'),
        ('differences.zh.md', 'GRU、RNN 层以及各种 cell 记录的节点与 PyTorch 相同。'),
        ('differences.zh.md', '** PyTorch 在一个节点算完之后马上释放它保存的张量（后面的步骤用不到了）； minigrad 则等整个反向传播'),
        ('differences.zh.md', '** minigrad 有些运算保存得比 PyTorch 多：`addmm`（`Linear` 用的）两个因子都存， P'),
        ('differences.zh.md', '** 和 PyTorch 一样，`no_grad` 不会关掉前向模式。'),
        ('differences.zh.md', '`inference_mode` 在 PyTorch 里会关掉它（运算的输出不带切向量），在 minigrad 里不会，'),
        ('differences.zh.md', '没有 JVP 规则的运算会报 PyTorch 那句话（“Trying to use forward AD with ..'),
        ('differences.zh.md', '自定义 Function 的 `jvp` 对可微输出返回 `None` 时，minigrad 给出清楚的报错，PyTor'),
        ('differences.zh.md', '** `torch.func.vmap` 靠每个运算各自的批处理规则，让整批数据一次穿过每个运算。'),
        ('differences.zh.md', '不同之处在于：minigrad 没有成批的反向传播和前向模式传播， 所以 `jacrev` 每个输出元素做一遍反向传播，'),
        ('differences.zh.md', 'f 里的 print 会每个样本打印一次（被放弃的那次尝试也会打印一次）；`.item()` 和对值的 `if` 在逐个'),
        ('differences.zh.md', '函数变换结果的数值和 `requires_grad` 与 PyTorch 相同， 但 `grad_fn` 可能是另一个节'),
    ), command='pytest tests/core/test_saved_names_torch.py tests/teach/test_make_dot.py tests/func tests/core/test_forward_ad.py tests/compare/test_trace_torch_memory.py (each side by side with torch 2.13)'),
    Claim((
        ('en/03-drawing-the-graph.md', "The first answer a learner finds online is torchviz's `make_"),
        ('en/03-drawing-the-graph.md', 'On PyTorch the same lines run with `from torchviz import mak'),
        ('en/03-drawing-the-graph.md', 'With `show_attrs=True` each grey box also lists what its nod'),
        ('en/03-drawing-the-graph.md', "`minigrad.viz.make_dot` is torchviz's own picture, the same "),
    ), command='pytest tests/teach/test_make_dot.py (torchviz on torch and on minigrad, the DOT text compared)'),
    Claim((
        ('en/20-read-the-engine.md', "Most blocks here read minigrad's source or use its `trace`, "),
    ), command="pytest tests/teach/test_tutorials.py -k 20 (the lesson's unmarked blocks run on torch)"),
    Claim((
        ('en/23-hessians.md', '`autograd.functional.hessian(f, x)` and `torch.func.hessian('),
        ('en/23-hessians.md', '`H·v` needs no Hessian: `torch.func.jvp(grad(f), (x,), (v,))'),
        ('en/23-hessians.md', "The block that counts passes is minigrad's own; every other "),
    ), command='pytest tests/teach/test_tutorials.py -k 23 (every unmarked block runs on torch) and tests/func'),
    Claim((
        ('en/24-backward-as-a-program.md', '`AddBackward0` hands the same gradient to both inputs (`g_W '),
        ('en/24-backward-as-a-program.md', '`nn.Linear` records `addmm` (bias plus matrix product) and t'),
        ('en/24-backward-as-a-program.md', "The same program can be written for PyTorch's own backward: "),
    ), command='pytest tests/teach/test_program.py tests/compare/test_trace_torch_memory.py'),
    Claim((
        ('en/25-what-the-graph-keeps.md', "PyTorch's engine frees what a node saved as soon as the node"),
        ('en/25-what-the-graph-keeps.md', '`backward()` frees what the nodes saved (PyTorch as soon as '),
    ), command="pytest tests/compare/test_trace_torch_memory.py (PyTorch's freeing watched with weakrefs)"),
    Claim((
        *both(DIFF, "With `use_reentrant=False`, PyTorch's", "用 `use_reentrant=False` 时，PyTorch 的"),
        *both("25-what-the-graph-keeps.md", "With `use_reentrant=False` minigrad keeps as much as",
              "用 `use_reentrant=False` 时，minigrad 留下的和不用检查点一样多"),
        *both("25-what-the-graph-keeps.md", "`checkpoint(block, h, use_reentrant=True)` keeps only",
              "`checkpoint(block, h, use_reentrant=True)` 只留下这一段的输入"),
    ), command="pytest tests/teach/test_tutorials.py -k 25 (its step 9 counts what PyTorch keeps "
               "with either variant through saved-tensor hooks)"),
    Claim((
        ('en/teachers.md', "| forward | 1 | the values, against minigrad's own op (itsel"),
        ('en/teachers.md', 'The maximum is the sum of your points: it does not depend on'),
        ('en/teachers.md', 'gets its own session and process group, and the zygote is th'),
    ), command="pytest tests/course (the grader's checks and scores)"),
    Claim((
        ('zh/03-drawing-the-graph.md', 'minigrad 也有它：参数与 torchviz 相同 （`params`、`show_attrs`、`show_sa'),
        ('zh/03-drawing-the-graph.md', '在 PyTorch 上，把 `minigrad.viz.make_dot` 换成 `from torchviz impo'),
        ('zh/03-drawing-the-graph.md', '加上 `show_attrs=True`，每个灰色方框还会列出该节点按 PyTorch 的名字保存的内容 （`mat1`'),
        ('zh/03-drawing-the-graph.md', '`minigrad.viz.make_dot` 就是 torchviz 的画法，和 torchviz 在 PyTorch'),
    ), command='pytest tests/teach/test_make_dot.py (torchviz on torch and on minigrad, the DOT text compared)'),
    Claim((
        ('zh/20-read-the-engine.md', '这里的大多数代码块 要读 minigrad 的源代码，或者用它的 `trace`，所以标成了 `minigrad-onl'),
    ), command="pytest tests/teach/test_tutorials.py -k 20 (the lesson's unmarked blocks run on torch)"),
    Claim((
        ('zh/23-hessians.md', '`autograd.functional.hessian(f, x)` 和 `torch.func.hessian(f)'),
        ('zh/23-hessians.md', '求 `H·v` 不需要 Hessian：`torch.func.jvp(grad(f), (x,), (v,))`（一遍'),
        ('zh/23-hessians.md', '数传播遍数的代码块是 minigrad 自己的；其余每个代码块都可以原样在 PyTorch 上运行并打印出同样的结果 （'),
    ), command='pytest tests/teach/test_tutorials.py -k 23 (every unmarked block runs on torch) and tests/func'),
    Claim((
        ('zh/24-backward-as-a-program.md', 'minigrad（和 PyTorch 的引擎一样）只在这一个地方做这件事，对所有运算都一样。'),
        ('zh/24-backward-as-a-program.md', '`nn.Linear` 记录的是 `addmm`（偏置加矩阵乘法）和权重的转置 `t()`，和 PyTorch 一样； '),
        ('zh/24-backward-as-a-program.md', '同样的程序也可以为 PyTorch 自己的反向传播写出来：`python -m compare explain-torc'),
    ), command='pytest tests/teach/test_program.py tests/compare/test_trace_torch_memory.py'),
    Claim((
        ('zh/25-what-the-graph-keeps.md', 'PyTorch 的引擎在一个节点算完之后，马上释放它保存的东西（后面再也用不到了）。'),
        ('zh/25-what-the-graph-keeps.md', '`backward()` 会释放节点保存的东西（PyTorch 每个节点算完就释放，minigrad 等整个反向传播结束'),
    ), command="pytest tests/compare/test_trace_torch_memory.py (PyTorch's freeing watched with weakrefs)"),
    Claim((
        ('zh/teachers.md', '| 前向 | 1 | 数值，对照 minigrad 自己的运算（它本身对照过 PyTorch） | |'),
        ('zh/teachers.md', '满分就是你设定的分数之和：与有没有装 PyTorch 无关，也与机器无关。'),
        ('zh/teachers.md', '拥有自己的会话和进程组，而 zygote 是它们的 subreaper：评完时，提交启动的每个进程都会被杀掉，调用过 `'),
    ), command="pytest tests/course (the grader's checks and scores)"),
    # -- the index
    Claim(((INDEX, "questions learners bring from PyTorch blog posts"),
           (INDEX, "回答大家从 PyTorch 博客里带来的那些问题")),
          not_a_claim="what the lessons answer"),
    Claim(((INDEX, "the CPU build, a 190 MB download, 750 MB installed"),
           (INDEX, "On Linux a plain `pip install torch==2.13.0` fetches the CUDA build"),
           (INDEX, "PyTorch 请装 CPU 版")),
          command="ls -l /opt/wheels/torch-2.13.0+cpu-*.whl (191,794,682 bytes) and du -sh "
                  ".venv/lib/python3.11/site-packages/torch (754M) on the project machine; on "
                  "Linux, uv pip install --dry-run torch==2.13.0 lists torch and 15 nvidia-* "
                  "wheels, about 2.8 GB, and with --index-url https://download.pytorch.org/whl/"
                  "cpu only torch==2.13.0+cpu, 192 MB (kyutai-labs/pocket-tts#219)"),
    Claim(((INDEX, "`make test` installs all of them into `.venv`"),
           (INDEX, "其余几课：第 3、17 课需要")),
          not_a_claim="what a lesson needs installed"),
    Claim(((INDEX, "Every lesson is also run on PyTorch by the tests"),
           (INDEX, "测试会把每一课在 PyTorch 上也跑一遍"),
           (INDEX, "every other block must print the same on PyTorch"),
           (INDEX, "A sentence that says what PyTorch does sits next to a block")),
          not_a_claim=TESTS),
    # -- the differences pages: how they are kept
    Claim((*both(DIFF, "minigrad mirrors PyTorch 2.13's API", "minigrad 的 API 照着 PyTorch 2.13"),
           *both(DIFF, "Each line was checked by running", "每一条都在 torch 2.13.0"),
           *both(DIFF, "Every lesson runs twice in the tests", "测试会把每一课运行两遍"),
           *both(DIFF, "On PyTorch each block must print", "在 PyTorch 上，每段代码打印的"),
           *both(DIFF, "it is not run on PyTorch, and the lesson's prose says why",
                 "它不在 PyTorch 上运行，课文会说明原因"),
           *both(DIFF, "And a sentence of a lesson, or of this page",
                 "此外，课文或本页里凡是讲 PyTorch"),
           *both(DIFF, "| minigrad | what it is | nearest thing in PyTorch |",
                 "| minigrad | 是什么 | PyTorch 里最接近的东西 |"),
           *both(DIFF, "it is the bridge to PyTorch", "它就是通往 PyTorch 的桥"),
           *both(DIFF, "There is no `torch.compile` and no `torch.jit`",
                 "没有 `torch.compile`，也没有 `torch.jit`")),
          not_a_claim=TESTS + "; what minigrad is for, or lacks"),
    Claim(both(DIFF, "an object's memory address changes on every run",
               "对象的内存地址每次运行都不一样"), check.an_address_is_the_objects_own),
    Claim((*both(DIFF, "minigrad.manual_seed(0) seeds numpy's generator, not PyTorch's",
                 "设的是 numpy 随机数生成器的种子，不是 PyTorch 的"),
           *both(DIFF, "give other numbers than PyTorch's after `torch.manual_seed(0)`",
                 "都和 `torch.manual_seed(0)` 之后 PyTorch 给出的不同"),
           *both(DIFF, "The distributions are PyTorch's", "分布和 PyTorch 相同")),
          check.minigrad_seeds_numpy_not_torch),
    # -- minigrad's own tools
    Claim((*both(DIFF, "does it for a real PyTorch backward",
                 "能对 PyTorch 真实的反向传播做同样的讲解"),
           *both(DIFF, "Careful: `torch.trace(A)` is something else",
                 "注意：`torch.trace(A)` 是另一回事"),
           *both(DIFF, "none: PyTorch's engine runs in C++", "没有：PyTorch 的引擎用 C++ 写成")),
          check.pytorch_has_no_recorder_and_trace_is_a_diagonal_sum),
    Claim(both(DIFF, "none (PyTorch ignores the attribute)", "没有（PyTorch 会忽略这个属性）"),
          check.pytorch_ignores_a_functions_formula),
    Claim(both(DIFF, "`torch.tensor` has no `name=`", "`torch.tensor` 没有 `name=`"),
          check.torch_tensor_has_no_name),
    Claim(both(DIFF, "none (it also reads PyTorch models)", "没有（它也能读 PyTorch 模型）"),
          check.pytorch_has_no_grad_report_and_minigrads_reads_torch),
    Claim(both(DIFF, "`torch.profiler` records the same order", "`torch.profiler` 记下的顺序相同"),
          check.the_profiler_records_the_same_order_as_the_ddp_trace),
    Claim((*both(DIFF, "`torch.autograd.gradcheck`, called the same way",
                 "`torch.autograd.gradcheck`，调用方式相同"),
           *both("07-custom-function.md", "PyTorch's is `torch.autograd.gradcheck`, called the",
                 "PyTorch 里对应的是 `torch.autograd.gradcheck`")),
          check.gradcheck_is_called_the_same_way_and_says_less),
    # -- differences on purpose, and not yet
    Claim(both(DIFF, "PyTorch keeps the gradients accumulated before the error",
               "PyTorch 则会留着出错之前已经累加的梯度"),
          check.pytorch_keeps_the_gradients_of_a_failed_backward),
    Claim((*both(DIFF, "`x.numpy()` returns it (the same memory, as in PyTorch)",
                 "`x.numpy()` 返回它（共享同一块内存，和 PyTorch 一样）"),
           *both(DIFF, "PyTorch tensors have no `.array`", "PyTorch 的张量没有 `.array`"),
           *both(DIFF, "`x.data` is a Tensor, as in PyTorch",
                 "`x.data` 是一个 Tensor，和 PyTorch 一样"),
           *both(DIFF, "`.cuda()` fails as on a CPU-only PyTorch",
                 "`.cuda()` 会像只装了 CPU 版的 PyTorch")),
          check.numpy_data_and_cuda_are_as_said),
    Claim((*both(DIFF, "float32 by default, as PyTorch", "默认 float32，和 PyTorch 一样"),
           *both(DIFF, "may add in another order than PyTorch's kernels",
                 "相加的顺序可能和 PyTorch 的底层实现不同")),
          check.float32_is_the_default_and_sums_differ_in_the_last_bits),
    Claim(both(DIFF, "As PyTorch's, it runs each node once",
               "和 PyTorch 一样， 每个节点只执行一次"),
          check.each_node_runs_once_after_all_its_gradients),
    Claim(both(DIFF, "PyTorch has only `torch.autograd.Function`",
               "PyTorch 只有 `torch.autograd.Function`"), check.pytorch_has_only_autograd_function),
    Claim(both(DIFF, "anomaly mode is process-wide, both as in PyTorch",
               "异常检测模式对整个进程有效，两者都和 PyTorch 一样"),
          check.grad_mode_is_per_thread_and_anomaly_mode_per_process),
    Claim(both(DIFF, "but PyTorch has already called `h.retain_grad()`",
               "但 PyTorch 这时已经对 `h` 调用过 `retain_grad()`"),
          check.a_refused_backward_has_called_retain_grad),
    Claim((*both(DIFF, "`ones(2**25, 3).mean(0)` is 1, as in PyTorch",
                 "`ones(2**25, 3).mean(0)` 是 1，和 PyTorch 一样"),
           *both(DIFF, "In two cases PyTorch 2.13 loses precision",
                 "有两种情况 PyTorch 2.13 会丢精度而 minigrad 不会"),
           *both(DIFF, "and in PyTorch depends on its threads",
                 "在 PyTorch 上则取决于它用几个线程")),
          check.long_float32_sums_in_pytorch),
    Claim((*both(DIFF, "Where PyTorch has an error message, minigrad uses its words",
                 "PyTorch 有报错信息的地方，minigrad 用的是它的原话"),
           *both(DIFF, "names the op and both shapes before PyTorch's sentence",
                 "会在 PyTorch 的那句话前面写出运算名和两个形状")),
          check.messages_are_pytorchs_words),
    Claim((*both(DIFF, "Where PyTorch silently returns `inf` or `nan`",
                 "在 PyTorch 默默返回 `inf` 或 `nan` 的地方"),
           *both(DIFF, "leaves them out, as PyTorch prints nothing there",
                 "不打印这些警告，和 PyTorch 一样安静")),
          check.pytorch_returns_inf_and_nan_silently),
    Claim(both(DIFF, "PyTorch warns (\"Full backward hook is firing",
               "PyTorch 会发出警告（“Full backward hook is"),
          check.pytorch_warns_for_a_full_backward_hook_without_inputs),
    Claim((*both(DIFF, "PyTorch's performance note for `Conv2d(..., padding=\"same\")`",
                 "PyTorch 有一条性能提示"),
           *both(DIFF, "PyTorch names the node of the new `.grad`",
                 "PyTorch 把新 `.grad` 的节点叫做")),
          check.create_graph_and_even_same_padding_warn_once),
    Claim(both(DIFF, "PyTorch shows `AsStridedBackward0` there",
               "PyTorch 显示的是 `AsStridedBackward0`"),
          check.a_view_changed_under_no_grad_reads_as_strided),
    Claim((*both(DIFF, "`torch.Generator` is numpy's PCG64 as well",
                 "`torch.Generator` 里面也是 numpy 的 PCG64"),),
          command="pytest tests/core/test_generator.py (each engine's generator side by side)"),
    Claim((*both(DIFF, "`torch.save(model, PATH)` and `torch.load(PATH, weights_only=False)`",
                 "`torch.save(model, PATH)` 和 `torch.load(PATH, weights_only=False)` 在各自"),
           *both(DIFF, "The default load refuses a whole model with PyTorch's words",
                 "默认的载入会用 PyTorch 的原话拒绝整个模型")),
          command="pytest tests/core/test_save_whole_objects.py tests/programs -k whole_model"),
    Claim((*both(DIFF, "`layout=torch.strided` and `memory_format=`",
                 "`layout=torch.strided` 和 `memory_format=`"),
           *both(DIFF, "Every keyword PyTorch's functions and Tensor methods take",
                 "PyTorch 的函数和 Tensor 方法接受的每个关键字")),
          command="pytest tests/core/test_keyword_names.py (torch's argument parser asked)"),
    Claim((*both(DIFF, "A view made inside `inference_mode` of a tensor made outside",
                 "在 `inference_mode` 里对外面创建的张量取的视图"),
           *both(DIFF, "PyTorch 2.13 writes the values, then raises",
                 "PyTorch 2.13 先写入，再报错")),
          command="pytest tests/core/test_inference_tensors.py (side by side with torch)"),
    Claim(both(DIFF, "`pack_padded_sequence` refuses a length longer than the padded batch",
               "长度超过填充后长度时，`pack_padded_sequence` 会拒绝"),
          command="pytest tests/nn/test_packed_sequences.py (side by side with torch)"),
    Claim(both(DIFF, "record some other nodes than PyTorch's kernel without oneDNN",
               "记录的节点和不用 oneDNN 时 PyTorch 的实现有些不同"),
          command="pytest tests/nn/test_packed_sequences.py tests/programs -k packed (the "
                  "gradients compared with torch's)"),
    Claim((*both(DIFF, "`device=\"meta\"` in factories and modules, `.to(\"meta\")`",
                 "工厂函数和模块的 `device=\"meta\"`"),
           *both(DIFF, "Behind a meta tensor minigrad keeps numpy zeros",
                 "minigrad 在 meta 张量背后放的是 numpy 的零数组"),
           *both(DIFF, "A CPU tensor of floats next to a meta one is refused",
                 "浮点数的 CPU 张量和 meta 张量放在一起"),
           *both(DIFF, "What needs the values to know its result",
                 "结果要看数值才能确定的运算"),
           ("differences.zh.md", "整数或布尔的 CPU 张量（下标、类别标签、掩码）minigrad 照收"),
           ("differences.zh.md", "PyTorch 的报错讲的是它内部的算子注册表")),
          command="pytest tests/core/test_meta_device.py tests/ops/test_ops_table_meta.py "
                  "(every op of the table, and the rest, side by side with torch 2.13)"),
    Claim(both(DIFF, "Two of PyTorch's warnings end with", "PyTorch 有两条警告末尾带着"),
          check.two_warnings_say_where_pytorch_raised_them),
    Claim(both(DIFF, "Some ops also save fewer tensors than PyTorch's",
               "有些运算保存的张量比 PyTorch 少"),
          check.nll_loss_and_max_pack_more_in_pytorch),
    Claim(both(DIFF, "error messages follow PyTorch's for the operations in `compare/`'s table",
               "报错信息都和 PyTorch 一致"),
          command="python -m pytest tests/compare tests/ops (every op of the shared table: "
                  "values, gradients, node names and next_functions against torch 2.13)"),
    # -- the lessons
    Claim(both("03-drawing-the-graph.md", "in PyTorch terms, the `AccumulateGrad` nodes",
               "在 PyTorch 里它们是 `AccumulateGrad` 节点"),
          check.leaves_are_reached_through_accumulate_grad),
    Claim((*both("03-drawing-the-graph.md", "in one node, as PyTorch's `Linear` does",
                 "和 PyTorch 的 `Linear` 一样"),
           *both("13-training-end-to-end.md", "Each `Linear` is two nodes, as in PyTorch",
                 "和 PyTorch 一样，每个 `Linear` 是两个节点")),
          check.linear_is_a_transpose_and_an_addmm),
    Claim((*both("03-drawing-the-graph.md", "PyTorch users draw with the separate torchviz",
                 "PyTorch 用户用另一个包 torchviz 画图"),
           *both("10-property-based-checks.md", "To compare with PyTorch as well (lesson 11)",
                 "如果还想和 PyTorch 对答案（第 11 课）"),
           *both("13-training-end-to-end.md", "why the random numbers differ from PyTorch's",
                 "以及随机数为什么和 PyTorch 不同"),
           *both("15-data-and-a-cnn.md", "Every block but the traces runs on PyTorch",
                 "除了两段 trace，每段代码都能在 PyTorch 上运行"),
           *both("teachers.md", "in a PyTorch-shaped API", "能不能让学生用和 PyTorch 一样的 API"),
           ),
          not_a_claim="what minigrad's tools, tests and grader do, or a pointer to another page"),
    Claim(both("07-custom-function.md", "as in PyTorch's `gradcheck`",
               "和 PyTorch 的 `gradcheck` 一样"), check.gradcheck_prints_a_row_per_input_element),
    Claim(both("08-controlling-backward.md", "hooks, `detach` and `no_grad` are PyTorch's",
               "hook、`detach` 和 `no_grad` 则是 PyTorch 的 API"),
          check.hooks_detach_and_no_grad_are_pytorchs),
    Claim(both("10-property-based-checks.md", "multiplying a bool tensor by a Python float",
               "bool 张量乘以 Python 浮点数得到的是 float32"),
          check.a_bool_tensor_times_a_float_is_float32),
    Claim(both("14-your-pytorch-program.md", "PyTorch's own backward of the real `torch` model",
               "如果你想看的是真正的 `torch` 模型在 PyTorch 里的反向传播"),
          check.trace_torch_explains_a_real_torch_model),
    Claim((*both("14-your-pytorch-program.md", "A PyTorch or d2l program runs on minigrad",
                 "PyTorch 或 d2l 的程序，只要把 import 改掉"),
           ("en/14-your-pytorch-program.md", "with `minigrad` for `torch` in the names of types")),
          command="python -m pytest tests/programs (35 learner programs, each run on minigrad "
                  "and on PyTorch, print the same lines)"),
    Claim(both("15-data-and-a-cnn.md", "yields batches, as in PyTorch",
               "一批一批地给出数据，和 PyTorch 一样"), check.data_loader_yields_batches),
    Claim(both("19-your-first-op-graded.md", "The engines would quietly do that sum for you",
               "其实引擎会悄悄替你做这个求和"),
          check.the_engine_sums_a_broadcast_gradient_a_function_returns),
]
