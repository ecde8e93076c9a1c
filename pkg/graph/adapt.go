package graph

import (
	"maps"
	"slices"
)

// An AdaptRule lets two declarations of one resource that differ in the
// str parameter Param merge into one: when both values are in Values (a
// declaration without the parameter counts as Default), the merged
// resource holds the one that comes later in Values. A kind declares its
// rules once, in its schema; pkg declares that "installed" and "newest"
// merge to "newest".
type AdaptRule struct {
	Param   string
	Values  []string
	Default string
}

// MergeDuplicate returns the one resource that two declarations a and b of
// the same kind and name stand for, and false when they cannot be one: a
// itself when they are equal (EqualResource); otherwise, when their
// metaparameters are equal, every parameter is equal but those the kind's
// AdaptRules allow to differ, and those differ within their rule, a copy
// of a holding the adapted values. The result does not depend on which of
// the two comes first (but for its position, a's). It is the one rule for
// duplicates of every stage: the compilers, Validate and Merge use it.
func MergeDuplicate(a, b *Resource) (*Resource, bool) {
	if EqualResource(a, b) {
		return a, true
	}
	if a.Kind != b.Kind || a.Name != b.Name || !equalMeta(a.Meta, b.Meta) {
		return nil, false
	}
	s, ok := LookupKind(a.Kind)
	if !ok || len(s.Adapt) == 0 {
		return nil, false
	}
	pa, pb := maps.Clone(a.Params), maps.Clone(b.Params)
	merged := map[string]string{}
	for _, rule := range s.Adapt {
		va, okA := adaptValue(pa, rule)
		vb, okB := adaptValue(pb, rule)
		ia, ib := slices.Index(rule.Values, va), slices.Index(rule.Values, vb)
		switch {
		case !okA || !okB:
			return nil, false
		case va == vb:
		case ia < 0 || ib < 0:
			return nil, false
		}
		_, inA := pa[rule.Param]
		_, inB := pb[rule.Param]
		if inA || inB {
			merged[rule.Param] = va
			if va != vb {
				merged[rule.Param] = rule.Values[max(ia, ib)]
			}
		}
		delete(pa, rule.Param)
		delete(pb, rule.Param)
	}
	if !EqualParams(pa, pb) {
		return nil, false
	}
	for k, v := range merged {
		if pa == nil {
			pa = map[string]any{}
		}
		pa[k] = v
	}
	c := *a
	c.Params = pa
	return &c, true
}

// adaptValue returns the value of rule's parameter in params (its default
// when absent), and false when it is not a str.
func adaptValue(params map[string]any, rule AdaptRule) (string, bool) {
	v, ok := params[rule.Param]
	if !ok {
		return rule.Default, true
	}
	s, ok := v.(string)
	return s, ok
}
