package check

import (
	"testing"
	"time"
)

// goodConsume is a history CheckConsume passes: m1 and m2 pushed to p0,
// m1 delivered to consumer 1 whose lease expired, then m1 and m2 to
// consumer 2, which acked both; consumer 1's late ack of m1 was a noop.
func goodConsume() ([]string, []Delivery, []Ack, []Lease) {
	pushed := []string{"m1", "m2"}
	deliveries := []Delivery{
		{Consumer: 1, TxnID: "m1", Partition: "p0", LeaseID: "L1", Call: 10, Return: 20},
		{Consumer: 2, TxnID: "m1", Partition: "p0", LeaseID: "L2", Call: 3000, Return: 3010},
		{Consumer: 2, TxnID: "m2", Partition: "p0", LeaseID: "L2", Call: 3000, Return: 3010},
	}
	acks := []Ack{{Consumer: 2, TxnID: "m1", Return: 3100}, {Consumer: 2, TxnID: "m2", Return: 3100},
		{Consumer: 1, TxnID: "m1", Noop: true, Return: 3200}}
	leases := []Lease{{Consumer: 1, ID: "L1", Partition: "p0", From: 20, To: 2010}, {Consumer: 2, ID: "L2", Partition: "p0", From: 3010, To: 3050}}
	return pushed, deliveries, acks, leases
}

func TestCheckConsume(t *testing.T) {
	t.Run("good", func(t *testing.T) {
		p, d, a, l := goodConsume()
		assertKinds(t, CheckConsume(p, d, a, l, 100*time.Nanosecond), nil)
	})
	for _, tt := range []struct {
		kind  string
		spoil func(p *[]string, d *[]Delivery, a *[]Ack, l *[]Lease)
	}{
		{KindUndelivered, func(p *[]string, _ *[]Delivery, _ *[]Ack, _ *[]Lease) { *p = append(*p, "m3") }},
		{KindRedelivered, func(_ *[]string, d *[]Delivery, _ *[]Ack, _ *[]Lease) {
			*d = append(*d, Delivery{Consumer: 1, TxnID: "m2", Partition: "p0", LeaseID: "L3", Call: 3101, Return: 3110})
		}},
		{KindAckedTwice, func(_ *[]string, _ *[]Delivery, a *[]Ack, _ *[]Lease) {
			*a = append(*a, Ack{Consumer: 1, TxnID: "m2", Return: 3300})
		}},
		{KindLeaseOverlap, func(_ *[]string, _ *[]Delivery, _ *[]Ack, l *[]Lease) {
			(*l)[0].To, (*l)[1].To = 3200, 3300 // consumer 1 still held L1 for 190 ns of L2
		}},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			p, d, a, l := goodConsume()
			tt.spoil(&p, &d, &a, &l)
			got := CheckConsume(p, d, a, l, 100*time.Nanosecond)
			assertKinds(t, got, []string{tt.kind})
			for _, x := range got {
				t.Log(x)
			}
		})
	}
	t.Run("overlap within the skew", func(t *testing.T) {
		p, d, a, l := goodConsume()
		l[0].To, l[1].To = 3100, 3300 // 90 ns at once, under the 100 allowed
		assertKinds(t, CheckConsume(p, d, a, l, 100*time.Nanosecond), nil)
	})
}
