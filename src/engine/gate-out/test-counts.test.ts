import { describe, expect, it } from "vitest";
import { junitCounts } from "./test-counts.js";

describe("JUnit counts", () => {
  it("counts node's report: passed, skipped, todo and failed test cases", () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?>
<testsuites>
	<testcase name="a" time="0.001" classname="test"/>
	<testcase name="b" time="0.0" classname="test">
		<skipped type="skipped" message="true"/>
	</testcase>
	<testcase name="c" time="0.0" classname="test">
		<skipped type="todo" message="true"/>
	</testcase>
	<testsuite name="suite">
		<testcase name="d" time="0.001" classname="test" failure="1 == 2">
			<failure type="testCodeFailure" message="1 == 2">boom</failure>
		</testcase>
	</testsuite>
</testsuites>`;
    expect(junitCounts(xml)).toEqual({ tests: 4, passed: 1, failed: 1, skipped: 1, todo: 1 });
  });

  it("counts pytest's report, errors as failures", () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="0" skipped="1" tests="3"><testcase classname="tests.test_sum" name="test_a" time="0.001" /><testcase classname="tests.test_sum" name="test_b" time="0.001"><skipped type="pytest.skip" message="later">skip</skipped></testcase><testcase classname="tests.test_sum" name="test_c" time="0.001"><error message="fixture">x</error></testcase></testsuite></testsuites>`;
    expect(junitCounts(xml)).toEqual({ tests: 3, passed: 1, failed: 1, skipped: 1, todo: 0 });
  });

  it("takes a report cut short (no closing element) for none", () => {
    expect(junitCounts(`<?xml version="1.0"?>\n<testsuites>\n<testcase name="a"/>`)).toBeNull();
  });
});
