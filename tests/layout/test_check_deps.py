"""scripts/check-deps.py on small trees made here: it must fail on each kind
of finding (a cycle by includes, a cycle by calls alone, a layer used from
below, another module's internal header) and pass a tree without them."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "check-deps.py")
CC = os.environ.get("CC", "cc")


class CheckDeps(unittest.TestCase):
    def tree(self, files):
        """Writes FILES (path -> text) into a new tree, compiles every .c
        into its build directory with a compile_commands.json, and returns
        check-deps' (exit code, output) on it."""
        root = tempfile.mkdtemp(prefix="porta-deps-")
        self.addCleanup(shutil.rmtree, root)
        build = os.path.join(root, "build")
        os.makedirs(build)
        db = []
        for path, text in files.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        for path in files:
            full = os.path.join(root, path)
            if path.endswith(".c"):
                obj = path.replace("/", "_") + ".o"
                args = [CC, "-I", root, "-c", full, "-o", obj]
                subprocess.run(args, cwd=build, check=True)
                db.append({"directory": build, "file": full, "output": obj,
                           "arguments": args})
        with open(os.path.join(build, "compile_commands.json"), "w") as f:
            json.dump(db, f)
        res = subprocess.run([sys.executable, SCRIPT, "--repo", root, build],
                             capture_output=True, text=True)
        return res.returncode, res.stdout + res.stderr

    def test_a_clean_tree_passes(self):
        rc, out = self.tree({
            "common/a.h": "int a(void);\n",
            "common/a.c": '#include "common/a.h"\nint a(void) { return 1; }\n',
            "policy/p.h": "int p(void);\n",
            "policy/p.c": '#include "common/a.h"\n#include "policy/p.h"\n'
                          "int p(void) { return a(); }\n",
        })
        self.assertEqual(rc, 0, out)
        self.assertIn("no cycle, layers kept", out)

    def test_two_files_including_each_other(self):
        rc, out = self.tree({
            "common/a.h": '#ifndef A_H\n#define A_H\n#include "common/b.h"\nint a(void);\n#endif\n',
            "common/a.c": '#include "common/a.h"\nint a(void) { return 1; }\n',
            "common/b.h": '#ifndef B_H\n#define B_H\n#include "common/a.h"\nint b(void);\n#endif\n',
            "common/b.c": '#include "common/b.h"\nint b(void) { return 2; }\n',
        })
        self.assertEqual(rc, 1, out)
        self.assertIn("cycle: common/a -> common/b", out)

    def test_two_files_calling_each_other_without_a_header(self):
        rc, out = self.tree({
            "common/a.c": "int b(void);\nint a(int x) { return x ? b() : 0; }\n",
            "common/b.c": "int a(int);\nint b(void) { return a(0); }\n",
        })
        self.assertEqual(rc, 1, out)
        self.assertIn("cycle: common/a -> common/b", out)
        self.assertIn("calling b()", out)
        self.assertIn("calling a()", out)

    def test_a_cycle_of_three(self):
        rc, out = self.tree({
            "common/a.c": "int b(void);\nint a(void) { return b(); }\n",
            "common/b.c": "int c(void);\nint b(void) { return c(); }\n",
            "common/c.c": "int a(void);\nint c(void) { return a(); }\n",
        })
        self.assertEqual(rc, 1, out)
        self.assertIn("cycle: common/a -> common/b -> common/c", out)

    def test_a_layer_used_from_below(self):
        rc, out = self.tree({
            "sandbox/s.h": "int s(void);\n",
            "sandbox/s.c": '#include "sandbox/s.h"\nint s(void) { return 1; }\n',
            "policy/p.c": '#include "sandbox/s.h"\nint p(void) { return s(); }\n',
        })
        self.assertEqual(rc, 1, out)
        self.assertIn("layer: policy/p.c (policy) uses sandbox/s.h (sandbox)", out)

    def test_another_modules_internal_header(self):
        rc, out = self.tree({
            "sandbox/internal.h": "int s(void);\n",
            "sandbox/s.c": '#include "sandbox/internal.h"\nint s(void) { return 1; }\n',
            "supervisor/r.c": '#include "sandbox/internal.h"\nint r(void) { return s(); }\n',
            "tests/unit/sandbox/t.c": '#include "sandbox/internal.h"\n',
        })
        self.assertEqual(rc, 1, out)
        self.assertIn("internal: supervisor/r.c includes sandbox/internal.h", out)
        self.assertNotIn("tests/unit/sandbox/t.c", out, "a module's own tests may")

    def test_a_header_guarded_as_internal(self):
        rc, out = self.tree({
            "netproxy/conn.h": "#ifndef PORTA_INSIDE_NETPROXY\n#error no\n#endif\nint c(void);\n",
            "netproxy/conn.c": "int c(void) { return 1; }\n",
            "supervisor/n.h": '#include "netproxy/conn.h"\n',
        })
        self.assertEqual(rc, 1, out)
        self.assertIn("internal: supervisor/n.h includes netproxy/conn.h", out)


if __name__ == "__main__":
    unittest.main()
