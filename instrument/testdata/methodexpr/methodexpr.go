// Package methodexpr calls methods through method expressions, (*T).M(x,
// args), whose function type takes the receiver first, as
// golang/protobuf's generated code does: the arguments are the receiver's
// and the method's own parameters, one further along.
package methodexpr

// Queue hands values over its channel.
type Queue struct{ c chan int }

// NewQueue returns a queue that holds n values.
func NewQueue(n int) *Queue { return &Queue{c: make(chan int, n)} }

// Put sends v on c.
func (q *Queue) Put(v int, c chan int) { c <- v }

// Take receives from the queue's channel.
func (q *Queue) Take() int { return <-q.c }

// PutAll puts each value on the queue's own channel, through a method
// expression.
func PutAll(q *Queue, vs ...int) {
	for _, v := range vs {
		(*Queue).Put(q, v, q.c)
	}
}

// Taker returns the queue's Take as a method expression value.
func Taker() func(*Queue) int { return (*Queue).Take }
