"""The README's examples work as written: its Python snippets are exported and every command it
shows for them runs (lattice-cli's, the exporter's), and each exported model lowers and runs on
the CPU runtime. The snippets and commands are read from README.md itself, so the test follows
the README rather than a copy of it.

Commands are taken from the README's ```sh blocks and from the inline `python3 -m
lattice_studio_export ...` command of the numeric-debugger caption. `build/bin/lattice-cli` runs
the lattice-cli under test, `build/bin/lattice-studio` (a window) is skipped with a message, and a
command that names files the README only stands for (`mynet/models.py`, `net.pth`) is skipped
with a message too.
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest

import support

REPO_ROOT = os.path.dirname(os.path.dirname(support.PACKAGE_ROOT))
README = os.path.join(REPO_ROOT, "README.md")


def readme_text():
    with open(README, encoding="utf-8") as f:
        return f.read()


def fenced_blocks(text, language):
    """The contents of every ```language block, in order."""
    return [m.group(1) for m in re.finditer(r"```" + language + r"\n(.*?)```", text, re.S)]


def command_lines(block):
    """The block's commands: comments dropped, backslash continuations joined."""
    lines, pending = [], ""
    for raw in block.splitlines():
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = (pending + line).strip()
        pending = ""
        if line:
            lines.append(line)
    return lines


class ReadmeExamples(unittest.TestCase):
    def setUp(self):
        self.text = readme_text()
        self.tmp = tempfile.TemporaryDirectory()
        self.work = self.tmp.name
        self.variables = {}
        self.skipped = []

    def tearDown(self):
        for reason in self.skipped:
            print("  skipped from the README: " + reason)
        self.tmp.cleanup()

    # --- running one README command -------------------------------------------------------

    def python_env(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = support.PACKAGE_ROOT + os.pathsep + env.get("PYTHONPATH", "")
        return env

    def run_command(self, line, cwd):
        """Runs one README command line in `cwd`; returns the CompletedProcess or None (skipped)."""
        for name, value in self.variables.items():
            line = line.replace("$" + name, value)
        assignment = re.fullmatch(r"([A-Za-z_]\w*)=(\S+)", line)
        if assignment:
            self.variables[assignment.group(1)] = assignment.group(2)
            return None
        words = shlex.split(line)
        env = self.python_env()
        while words and re.fullmatch(r"[A-Za-z_]\w*=\S*", words[0]):
            words.pop(0)  # PYTHONPATH=packaging/python: the package path is set above
        if not words:
            return None
        program, args = words[0], words[1:]
        if program.endswith("lattice-studio"):
            self.skipped.append("'{}' (opens a window)".format(line))
            return None
        if program.endswith("lattice-cli"):
            command = [support.LATTICE_CLI] + args
        elif os.path.basename(program).startswith("python3"):
            command = [sys.executable] + args
        else:
            self.fail("the README shows a command this test does not know how to run: " + line)
        for arg in args:
            for part in re.split(r"[:=]", arg):
                if re.search(r"\.(py|pth|pt)$", part) and not os.path.exists(os.path.join(cwd, part)):
                    self.skipped.append("'{}' ({} stands for the reader's own file)".format(line, part))
                    return None
        result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)
        self.assertEqual(result.returncode, 0,
                         "README command failed: {}\nstdout:\n{}\nstderr:\n{}".format(
                             line, result.stdout[-3000:], result.stderr[-3000:]))
        return result

    def lower_and_run(self, model, cwd):
        """`lattice-cli lower MODEL` and `run` on random inputs: the model lowers and runs."""
        artifact = os.path.join(self.work, os.path.basename(model) + ".lattice")
        self.run_command("build/bin/lattice-cli lower {} -o {} --force".format(model, artifact), cwd)
        self.run_command("build/bin/lattice-cli validate {}".format(artifact), cwd)
        self.run_command("build/bin/lattice-cli run {} --random-inputs 100".format(artifact), cwd)

    # --- the examples ---------------------------------------------------------------------------

    def test_python_snippets_export_lower_and_run(self):
        snippets = fenced_blocks(self.text, "python")
        self.assertTrue(snippets, "README.md shows no python example")
        blocks = fenced_blocks(self.text, "sh")
        for snippet in snippets:
            name = re.match(r"#\s*(\S+\.py)", snippet)
            self.assertIsNotNone(name, "a README python snippet without its '# FILE.py' first line")
            script = name.group(1)
            with open(os.path.join(self.work, script), "w", encoding="utf-8") as f:
                f.write(snippet)
            # The commands shown for the snippet: the sh block that runs it.
            commands = [c for block in blocks if script in block for c in command_lines(block)]
            self.assertTrue(commands, "the README shows no commands for " + script)
            before = set(os.listdir(self.work))
            for line in commands:
                self.run_command(line, self.work)
            archives = sorted(set(os.listdir(self.work)) - before)
            archives = [a for a in archives if a.endswith(".ltfx")]
            self.assertTrue(archives, script + " wrote no .ltfx archive")
            for archive in archives:
                self.lower_and_run(os.path.join(self.work, archive), self.work)

    def test_exporter_command_of_the_numeric_caption(self):
        flat = re.sub(r"\s+", " ", self.text)
        commands = re.findall(r"`(python3 -m lattice_studio_export [^`]*packaging/python/examples/[^`]*)`", flat)
        self.assertTrue(commands, "the README's exporter command on packaging/python/examples is gone")
        for command in commands:
            out = re.search(r"-o (\S+)", command).group(1)
            target = os.path.join(self.work, out)
            self.run_command(command.replace("-o " + out, "-o " + target), REPO_ROOT)
            self.lower_and_run(target, REPO_ROOT)
            check = re.search(r"`lattice-cli check " + re.escape(out) + r"`", flat)
            if check:
                result = support.run_cli("check", target)
                self.assertIn(result.returncode, (0, 1), result.stderr)  # 1: int4 diverges, as the caption says

    def test_example_commands(self):
        blocks = [b for b in fenced_blocks(self.text, "sh") if "build/bin/lattice-cli" in b and ".py" not in b]
        self.assertTrue(blocks, "the README's lattice-cli example block is gone")
        for block in blocks:
            for line in command_lines(block):
                self.run_command(line, REPO_ROOT)


if __name__ == "__main__":
    if not support.LATTICE_CLI:
        print("lattice-cli not given (--lattice-cli PATH or LATTICE_CLI)")
        sys.exit(1)
    support.main()
