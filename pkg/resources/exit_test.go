package resources

import (
	"strings"
	"testing"
)

func TestExit(t *testing.T) {
	for _, code := range []int{-1, 1, 2, 4, 6, 126, 255} {
		if err := (&ExitRes{Code: code}).Validate(); err == nil {
			t.Errorf("code %d accepted", code)
		}
	}
	h := newHarness(t)
	init := h.init()
	init.Exit = func(int) { t.Fatal("the exit kind calls Init.Exit itself: the engine forwards ExitAsked") }
	x := &ExitRes{Code: 7}
	x.SetKind("exit")
	x.SetName("x")
	if err := x.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := x.Init(init); err != nil {
		t.Fatal(err)
	}
	checkApply(t, x, false, false)
	if _, asked := x.ExitAsked(); asked {
		t.Fatal("noop asked to exit")
	}
	checkApply(t, x, true, false)
	if code, asked := x.ExitAsked(); !asked || code != 7 {
		t.Fatalf("asked %v, code %d", asked, code)
	}
	startWatch(t, h, x)

	y := setup(t, h, "exit", "y", &ExitRes{}) // the harness offers no Exit
	if _, err := y.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "cannot be asked to exit") {
		t.Fatalf("without Init.Exit: %v", err)
	}
}
