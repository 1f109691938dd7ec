package timers

// grows (raftlog.StorageGrower): a call that schedules or reschedules may
// add a timer and is refused while a disk is full; a cancel and a fire
// (which appends its record and deletes its timer) go on.
func grows(data []byte) bool {
	op, err := decodeOp(data)
	c, ok := op.(*Call)
	if err != nil || !ok {
		return false
	}
	for _, o := range c.Ops {
		if o.Kind != KindCancel {
			return true
		}
	}
	return false
}
