/*
 * The one-stack property the policies keep (docs/policies.md): from the bottom of the
 * execution stack to its top, levels strictly increase, so no task is on it twice.
 */
#ifndef ONE_STACK_H
#define ONE_STACK_H

/* Fails the test when the stack (the interrupted code's, inside an interrupt handler)
 * breaks the property; returns its depth in handler frames. */
unsigned assert_one_stack(void);

#endif /* ONE_STACK_H */
