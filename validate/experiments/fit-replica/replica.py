# A replica of validate/src/fit.cpp's fit_constants and cross-validations (the
# bounds' charge search, IRLS on NNLS with the 1e-6 ridge), for trying terms
# without touching the C++: it reads the samples of `agpu fit --runs --format
# json` (each run's features at constant 1 and its totals) and gives the C++
# MAPEs to 0.01 point (in sample, by decade, by algorithm, --check).
# Needs Debian's python3-numpy and python3-scipy (not project dependencies).
import json, math, sys
import numpy as np
from scipy.optimize import nnls
TERMS=['launch','dram','l2','step','shared','latency','dram_latency','l2_latency','atomic']
BOUND={'dram':'m','l2':'m','step':'i','shared':'i'}
FIXED={'shared':1.0,'atomic':1.0}   # agpu.fit/7; sessions 19-21's tries fitted the atomic constant (agpu.fit/6): experiments.py pops it for them
def load(path, key='samples'):
    d=json.load(open(path)); S=d[key] if key=='samples' else d['check']['samples']
    return S
def feat(s, extra):
    f={t:s['features_s'].get(t,0.0) for t in TERMS}
    for name,(fn,bound) in extra.items(): f[name]=fn(s)
    return f
class Model:
    def __init__(self, extra):
        self.extra=extra; self.terms=TERMS+list(extra); self.bound=dict(BOUND)
        for k,(fn,b) in extra.items():
            if b: self.bound[k]=b
    def predict(self,f,c):
        none=sum(f[t]*c[t] for t in self.terms if t not in self.bound)
        m=sum(f[t]*c[t] for t in self.terms if self.bound.get(t)=='m')
        i=sum(f[t]*c[t] for t in self.terms if self.bound.get(t)=='i')
        return none+max(m,i)
    def charges(self,t,ch,r): return t not in self.bound or ch is None or ch[r]==self.bound[t]
    def nnls_rows(self,F,y,ch,w):
        T=self.terms; m=len(F); A=np.zeros((m+len(T),len(T))); b=np.zeros(m+len(T))
        for r in range(m):
            fs=0
            for j,t in enumerate(T):
                x=F[r][t]/y[r] if self.charges(t,ch,r) else 0
                if t in FIXED: fs+=FIXED[t]*x; A[r,j]=0
                else: A[r,j]=w[r]*x
            b[r]=w[r]*(1-fs)
        sc=np.linalg.norm(A[:m],axis=0)
        for j in range(len(T)):
            if sc[j]>0: A[:m,j]/=sc[j]; A[m+j,j]=math.sqrt(1e-6)
        x,_=nnls(A,b,maxiter=5000)
        c={t:(x[j]/sc[j] if sc[j]>0 else 0) for j,t in enumerate(T)}
        for t in FIXED: c[t]=FIXED[t]
        return c
    def crel(self,f,y,c,ch,r):
        return sum(f[t]*c[t] for t in self.terms if self.charges(t,ch,r))/y-1
    def irls(self,F,y,ch):
        w=[1.0]*len(F); c=self.nnls_rows(F,y,ch,w)
        for it in range(30):
            w=[1/math.sqrt(max(abs(self.crel(F[r],y[r],c,ch,r)),1e-3)) for r in range(len(F))]
            n=self.nnls_rows(F,y,ch,w)
            mv=max(abs(n[t]-c[t])/max(abs(c[t]),1e-300) for t in self.terms); c=n
            if mv<1e-9: break
        return c
    def search(self,F,y,sq,start):
        solve=(lambda ch: self.nnls_rows(F,y,ch,[1.0]*len(F))) if sq else (lambda ch: self.irls(F,y,ch))
        def err(c):
            e=0
            for f,m in zip(F,y):
                r=self.predict(f,c)/m-1; e+= r*r if sq else abs(r)
            return e
        c=start if start else solve(None); best=err(c)
        for s in range(8):
            before=best; oc={t:max(v,1e-9) for t,v in c.items()}
            ratio=[]
            for f in F:
                i=sum(f[t]*oc[t] for t in self.terms if self.bound.get(t)=='i'); m=sum(f[t]*oc[t] for t in self.terms if self.bound.get(t)=='m')
                ratio.append(m/i if i>0 else float('inf'))
            order=sorted(range(len(F)),key=lambda r:ratio[r])
            ch=['m']*len(F)
            for split in range(len(F)+1):
                if split>0: ch[order[split-1]]='i'
                x=solve(list(ch)); e=err(x)
                if e<best: best=e; c=x
            for rnd in range(100):
                now=[]
                for f in F:
                    i=sum(f[t]*c[t] for t in self.terms if self.bound.get(t)=='i'); m=sum(f[t]*c[t] for t in self.terms if self.bound.get(t)=='m')
                    now.append('i' if i>m else 'm')
                x=solve(now); e=err(x)
                if e>=best: break
                best=e; c=x
            if best>=before*(1-1e-9): break
        return c
    def fit(self,F,y):
        return self.search(F,y,False,self.search(F,y,True,None))
def mape(M,F,y,c): return 100*sum(abs(M.predict(f,c)/m-1) for f,m in zip(F,y))/len(F)
def run(extra, S, C, verbose=False):
    M=Model(extra)
    F=[feat(s,extra) for s in S]; y=[s['measured_s'] for s in S]
    c=M.fit(F,y); ins=mape(M,F,y,c)
    # by decade
    dec=[int(math.floor(math.log10(s['n']))) for s in S]; tot=0; per={}
    for d in sorted(set(dec)):
        tr=[i for i in range(len(S)) if dec[i]!=d]; te=[i for i in range(len(S)) if dec[i]==d]
        cc=M.fit([F[i] for i in tr],[y[i] for i in tr])
        e=[abs(M.predict(F[i],cc)/y[i]-1)*100 for i in te]; tot+=sum(e); per[d]=sum(e)/len(e)
    bydec=tot/len(S)
    algs=sorted(set(s['algo'] for s in S)); tot=0; pa={}
    for a in algs:
        tr=[i for i in range(len(S)) if S[i]['algo']!=a]; te=[i for i in range(len(S)) if S[i]['algo']==a]
        cc=M.fit([F[i] for i in tr],[y[i] for i in tr])
        e=[abs(M.predict(F[i],cc)/y[i]-1)*100 for i in te]; tot+=sum(e); pa[a]=sum(e)/len(e)
    byalg=tot/len(S)
    FC=[feat(s,extra) for s in C]; yc=[s['measured_s'] for s in C]
    chk=mape(M,FC,yc,c)
    print('in %.2f  dec %.2f  alg %.2f  h200 %.2f'%(ins,bydec,byalg,chk), {k:round(v,4) for k,v in c.items()})
    if verbose:
        print('  by decade', {k:round(v,1) for k,v in per.items()}); print('  by alg', {k:round(v,1) for k,v in pa.items()})
    return M,c
if __name__=='__main__':
    # replica.py FIT.json CHECK.json: the committed model (agpu.fit/7), to compare with the C++.
    S=load(sys.argv[1]); C=load(sys.argv[2],'check')
    run({},S,C,True)
def fold_detail(extra, S, dec_out, top=20):
    M=Model(extra)
    F=[feat(s,extra) for s in S]; y=[s['measured_s'] for s in S]
    dec=[int(math.floor(math.log10(s['n']))) for s in S]
    tr=[i for i in range(len(S)) if dec[i]!=dec_out]; te=[i for i in range(len(S)) if dec[i]==dec_out]
    cc=M.fit([F[i] for i in tr],[y[i] for i in tr])
    print('fold constants', {k:round(v,4) for k,v in cc.items()})
    e=sorted([((M.predict(F[i],cc)/y[i]-1)*100, S[i]['run_id']) for i in te], key=lambda x:-abs(x[0]))
    print('fold MAPE %.2f'%(sum(abs(a) for a,_ in e)/len(e)))
    for a,r in e[:top]: print('  %6.1f %s'%(a,r))
